"""``RepeatVector``: each example's vector repeated ``n`` times, ``[batch, features] ->
[batch, n, features]`` (e.g. an encoder's summary fed to every decoder step, as Keras's
``RepeatVector``).

>>> import tensorweave as tw
>>> x = tw.Input(n_units=2, name="x", value=[[1.0, 2.0]])
>>> rep = RepeatVector(x, 3)
>>> rep.shape, rep().numpy().tolist()
((None, 3, 2), [[[1.0, 2.0], [1.0, 2.0], [1.0, 2.0]]])
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import describe, owner, require_dense

__all__ = ["RepeatVector"]


class RepeatVector(tw.Layer):
    """Repeat ``[batch, features]`` ``n`` times along a new time axis.

    Args:
        x: the input layer, dense ``[batch, features]``.
        n: how many times (the new axis's size).
        name, share_state_with: see ``tw.Layer`` (no variables).
    """

    def __init__(
        self,
        x: tw.Layer,
        n: int,
        *,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        who = owner("RepeatVector", name)
        require_dense(x, who)
        if len(x.shape) != 2:
            raise tw.ShapeError(
                f"{who}: expects [batch, features], got {describe(x)}. Fix: Flatten it first."
            )
        self.n = tw.positive_int(n, "n", who)
        super().__init__(
            x,
            shape=(x.shape[0], self.n, x.shape[1]),
            dtype=x.dtype,
            name=name,
            share_state_with=share_state_with,
        )

    def compute(self, x: Any) -> tf.Tensor:
        """``x[:, None, :]`` tiled ``n`` times."""
        return tf.repeat(tf.expand_dims(x, 1), self.n, axis=1)
