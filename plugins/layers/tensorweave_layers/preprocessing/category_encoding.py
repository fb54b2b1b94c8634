"""``CategoryEncoding``: integer indices to one-hot, multi-hot or count vectors, as
``keras.layers.CategoryEncoding`` (indices must be in ``[0, num_tokens)``; an index outside
gives a zero row in ``one_hot``, and is dropped from ``multi_hot``/``count``).

>>> import tensorweave as tw
>>> x = tw.Input(n_units=2, dtype="int64", name="ids", value=[[0, 3], [2, 2]])
>>> CategoryEncoding(x, num_tokens=4, output_mode="count")().numpy().tolist()
[[1.0, 0.0, 0.0, 1.0], [0.0, 0.0, 2.0, 0.0]]
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner as name_owner
from tensorweave_layers._spatial import describe
from tensorweave_layers.preprocessing._encode import check_mode, encode, encoded_shape

__all__ = ["CategoryEncoding"]


class CategoryEncoding(tw.Layer):
    """Encode integer indices as vectors of ``num_tokens`` entries.

    Args:
        x: integer indices, rank 1 or 2 (batch first).
        num_tokens: how many categories (the vector width).
        output_mode: ``"multi_hot"`` (Keras's default), ``"one_hot"`` or ``"count"``.
    """

    def __init__(
        self,
        x: tw.Layer,
        *,
        num_tokens: int,
        output_mode: str = "multi_hot",
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        owner = name_owner("CategoryEncoding", name)
        if not x.dtype.is_integer:
            raise tw.InputValueError(
                f"{owner} encodes integer indices, but {describe(x)} is {x.dtype.name}. Fix: "
                "look strings up first (StringLookup.v1), or cast the indices to int64."
            )
        if x.sparse or len(x.shape) > 2:
            raise tw.ShapeError(
                f"{owner} takes dense indices of rank 1 or 2, got {describe(x)}. Fix: reshape it."
            )
        self.num_tokens = tw.positive_int(num_tokens, "num_tokens", owner)
        self.output_mode = check_mode(output_mode, owner, ("one_hot", "multi_hot", "count"))
        shape = encoded_shape(x.shape, output_mode, self.num_tokens)
        super().__init__(
            x, shape=shape, dtype=tf.float32, name=name, share_state_with=share_state_with
        )

    def compute(self, x: Any) -> tf.Tensor:
        """The vectors of ``x``'s indices."""
        return encode(tf.cast(x, tf.int64), self.output_mode, self.num_tokens, self.compute_dtype)
