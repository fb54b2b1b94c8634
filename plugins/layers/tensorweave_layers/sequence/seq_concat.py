"""``SeqConcat``: concatenate the steps of a sequence, ``[batch, seq, n] -> [batch, seq * n]``.

The output width is static when the input's sequence length is; for an input of unknown
length, ``seq_size=`` states it (as TensorX's ``seq_size``: ``n_units = seq_size * n``),
and a run whose sequences have another length fails with an error.

>>> import numpy as np, tensorweave as tw
>>> from tensorweave_layers.sequence.seq_concat import SeqConcat
>>> x = tw.Input(shape=(3, 2), name="x", value=np.arange(6.0).reshape(1, 3, 2))
>>> cat = SeqConcat(x)
>>> cat.shape, cat().numpy().tolist()
((None, 6), [[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]])
>>> free = tw.Input(batch_shape=(None, None, 2), name="free")
>>> SeqConcat(free).shape, SeqConcat(free, seq_size=3).shape
((None, None), (None, 6))
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner as name_owner
from tensorweave_layers._spatial import describe

__all__ = ["SeqConcat"]


class SeqConcat(tw.Layer):
    """Flatten the steps of ``x`` ``[batch, seq, n]`` into one vector per sample.

    The output width is ``seq * n`` when ``seq`` (or ``seq_size``) and ``n`` are known,
    ``None`` otherwise.

    Args:
        x: a dense sequence ``[batch, seq, n]``.
        seq_size: the sequence length, for inputs whose ``seq`` is not static; must agree
            with a static ``seq``.
        name, share_state_with: see ``tw.Layer`` (no variables).
    """

    def __init__(
        self,
        x: tw.Layer,
        *,
        seq_size: int | None = None,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        who = name_owner("SeqConcat", name)
        if x.sparse or len(x.shape) != 3:
            raise tw.ShapeError(
                f"{who} expects a dense sequence "
                f"[batch, seq, n], got {describe(x)}. "
                "Fix: reshape the input to rank 3."
            )
        seq, n = x.shape[1], x.shape[2]
        if seq_size is not None:
            seq_size = tw.positive_int(seq_size, "seq_size", who)
            if seq is not None and seq != seq_size:
                raise tw.ShapeError(
                    f"{who}: seq_size={seq_size} but input {describe(x)} has sequences of "
                    f"length {seq}.\n  Fix: drop seq_size or make it {seq}."
                )
            if n is None:
                raise tw.ShapeError(
                    f"{who}: seq_size={seq_size} gives a static width only with a known step "
                    f"width, but input {describe(x)} has none.\n  Fix: give the input a fixed "
                    "last dimension."
                )
            seq = seq_size
        self.seq_size = seq
        width = seq * n if seq is not None and n is not None else None
        super().__init__(
            x,
            shape=(x.shape[0], width),
            dtype=x.dtype,
            name=name,
            share_state_with=share_state_with,
        )

    def compute(self, x: Any) -> tf.Tensor:
        """Reshape to ``[batch, seq * n]``."""
        shape = tf.shape(x)
        if self.shape[1] is None:
            return tf.reshape(x, [shape[0], shape[1] * shape[2]])
        check = tf.debugging.assert_equal(
            shape[1],
            tf.constant(self.seq_size, shape.dtype),
            message=f"SeqConcat {self.name!r}: the sequence length differs from seq_size",
        )
        with tf.control_dependencies([check]):  # the check runs before the reshape can fail
            return tf.reshape(x, [shape[0], self.shape[1]])
