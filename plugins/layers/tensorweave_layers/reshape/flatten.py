"""``Flatten``: each example as one vector, ``[batch, d1, d2, ...] -> [batch, d1 * d2 * ...]``
(the step between convolutions and dense layers, as Keras's ``Flatten``). The batch axis is
kept; the width is ``None`` when a per-example size is dynamic.

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(shape=(2, 3), name="x", value=np.arange(6.0).reshape(1, 2, 3))
>>> flat = Flatten(x)
>>> flat.shape, flat().numpy().tolist()
((None, 6), [[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]])
"""

from __future__ import annotations

import math
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner, require_dense

__all__ = ["Flatten"]


class Flatten(tw.Layer):
    """Reshape each example to a vector (a rank-1 input becomes ``[batch, 1]``).

    Args:
        x: the input layer (dense), ``[batch, ...]``.
        name, share_state_with: see ``tw.Layer`` (no variables).
    """

    def __init__(
        self, x: tw.Layer, *, name: str | None = None, share_state_with: tw.Layer | None = None
    ) -> None:
        require_dense(x, owner("Flatten", name))
        rest = x.shape[1:]
        width = None if None in rest else math.prod(int(d or 0) for d in rest)
        super().__init__(
            x,
            shape=(x.shape[0], width),
            dtype=x.dtype,
            name=name,
            share_state_with=share_state_with,
        )

    def compute(self, x: Any) -> tf.Tensor:
        """``tf.reshape(x, [batch, -1])``."""
        x = tf.convert_to_tensor(x)
        return tf.reshape(x, [tf.shape(x)[0], -1])
