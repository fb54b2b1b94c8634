"""``PositionEmbedding``: a learned embedding of each step's position (keras_hub's
``PositionEmbedding``, as in BERT and GPT-2).

A table ``[seq_len, width]`` holds one vector per position; for a sequence ``[batch,
time, width]`` (``time <= seq_len``) the layer returns the first ``time`` rows broadcast to
the input's shape, to be added to the token embeddings (``x + PositionEmbedding(x,
seq_len=128)``). The input's padding mask passes on.

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(batch_shape=(None, None, 2), value=np.zeros((3, 2, 2), "float32"))
>>> pos = PositionEmbedding(x, seq_len=4, w_init="ones")
>>> pos.shape, pos.embeddings.shape.as_list(), pos().numpy().shape
((None, None, 2), [4, 2], (3, 2, 2))
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import describe, owner
from tensorweave_layers.embedding.angles import check_positions_input
from tensorweave_layers.options.weights import (
    ConstraintLike,
    InitializerLike,
    RegularizerLike,
    WeightOptions,
    initial_value,
)

__all__ = ["PositionEmbedding"]


class PositionEmbedding(tw.Layer):
    """One learned vector per position, shaped like ``x``.

    Args:
        x: a dense float sequence ``[batch, time, width]``.
        seq_len: the longest sequence (the rows of the table; keras_hub's
            ``sequence_length``).
        w_init: the table's initializer (default glorot-uniform, as keras_hub).
        w_regularizer, w_constraint: a penalty on the table and a projection applied to it
            after each update.
        name, share_state_with: see ``tw.Layer``.
    """

    keeps_padding_mask = True  # one vector per step of x

    def __init__(
        self,
        x: tw.Layer,
        seq_len: int,
        *,
        w_init: InitializerLike = "tensorweave-layers:glorot_uniform",
        w_regularizer: RegularizerLike = None,
        w_constraint: ConstraintLike = None,
        name: str | None = None,
        share_state_with: PositionEmbedding | None = None,
    ) -> None:
        who = owner("PositionEmbedding", name)
        width = check_positions_input(x, who)
        self.seq_len = tw.positive_int(seq_len, "seq_len", who)
        if x.shape[1] is not None and x.shape[1] > self.seq_len:
            raise tw.ShapeError(
                f"{who}: input {describe(x)} has {x.shape[1]} steps, more than "
                f"seq_len={self.seq_len} positions. Fix: raise seq_len."
            )
        self._width = width
        self._w_init = tw.resolve("initializers", w_init, owner=who, option="w_init")
        self._weight_options = WeightOptions.resolve(
            who, w_regularizer=w_regularizer, w_constraint=w_constraint
        )
        super().__init__(
            x, shape=x.shape, dtype=x.dtype, name=name, share_state_with=share_state_with
        )

    def init_state(self) -> None:
        """The table ``[seq_len, width]``."""
        value = initial_value(
            self._w_init, (self.seq_len, self._width), self.dtype, owner=self.name
        )
        self.state.embeddings = self._weight_options.weight(self.state, "embeddings", value)

    def compute(self, x: Any) -> tf.Tensor:
        """The first ``time`` rows of the table, broadcast to ``x``'s shape."""
        dims = tf.shape(x)
        check = tf.debugging.assert_less_equal(
            dims[1],
            self.seq_len,
            message=f"PositionEmbedding {self.name!r}: a sequence longer than seq_len",
        )
        with tf.control_dependencies([check]):
            return tf.broadcast_to(self.state.embeddings[: dims[1]], dims)
