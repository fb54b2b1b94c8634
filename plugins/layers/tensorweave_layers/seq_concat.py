"""``SeqConcat``: concatenate the steps of a sequence, ``[batch, seq, n] -> [batch, seq * n]``.

>>> x = tw.Input(shape=(None, 3, 2), name="x", value=np.arange(6.0).reshape(1, 3, 2))
>>> cat = SeqConcat(x)
>>> cat.shape, cat().numpy().tolist()
((None, 6), [[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]])
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw

from ._shapes import owner as name_owner
from ._spatial import describe

__all__ = ["SeqConcat"]


class SeqConcat(tw.Layer):
    """Flatten the steps of ``x`` ``[batch, seq, n]`` into one vector per sample.

    The output width is ``seq * n`` when ``seq`` is fixed, ``None`` otherwise.
    """

    def __init__(
        self, x: tw.Layer, *, name: str | None = None, share_state_with: tw.Layer | None = None
    ) -> None:
        if x.sparse or len(x.shape) != 3:
            raise tw.ShapeError(
                f"{name_owner('SeqConcat', name)} expects a dense sequence "
                f"[batch, seq, n], got {describe(x)}. "
                "Fix: reshape the input to rank 3."
            )
        seq, n = x.shape[1], x.shape[2]
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
        return tf.reshape(x, [shape[0], shape[1] * shape[2]])
