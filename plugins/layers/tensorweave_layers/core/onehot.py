"""``OneHot``: integer ids to one-hot vectors (a new last axis of ``n_units``).

Ids outside ``[0, n_units)`` give all-zero vectors (``tf.one_hot``'s rule), which makes
a padding id such as ``-1`` come out as zeros.

>>> import tensorflow as tf, tensorweave as tw
>>> ids = tw.Input(shape=(), dtype=tf.int32, name="ids", value=[2, -1])
>>> OneHot(ids, 3)().numpy().tolist()
[[0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import describe, owner, require_dense

__all__ = ["OneHot"]


class OneHot(tw.Layer):
    """``tf.one_hot(ids, n_units)``.

    Args:
        x: a dense layer of integer ids, any rank.
        n_units: the number of classes (the new last axis).
        dtype: the output dtype.
        name, share_state_with: see ``tw.Layer`` (no variables).
    """

    def __init__(
        self,
        x: tw.Layer,
        n_units: int,
        *,
        dtype: tf.DType | str = tf.float32,
        name: str | None = None,
        share_state_with: OneHot | None = None,
    ) -> None:
        who = owner("OneHot", name)
        require_dense(x, who)
        if not x.dtype.is_integer:
            raise TypeError(
                f"{who}: input {describe(x)} has dtype {x.dtype.name}; OneHot needs integer "
                "ids.\n  Fix: build the input with dtype=tf.int64 (or cast it)."
            )
        if int(n_units) < 1:
            raise ValueError(f"{who}: n_units must be positive, got {n_units}.")
        super().__init__(
            x,
            shape=(*x.shape, int(n_units)),
            dtype=dtype,
            name=name,
            share_state_with=share_state_with,
        )

    def compute(self, x: Any) -> tf.Tensor:
        """The one-hot encoding."""
        return tf.one_hot(x, self.shape[-1], dtype=self.compute_dtype)
