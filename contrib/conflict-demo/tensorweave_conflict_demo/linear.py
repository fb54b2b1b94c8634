"""``Linear.v1`` as a third party might write it: ``x @ W + b`` on rank-2 inputs.

It shares its name with tensorweave-layers' ``Linear.v1`` on purpose; ask for it by its
qualified name, ``"tensorweave-conflict-demo:Linear.v1"``.

>>> import numpy as np, tensorweave as tw
>>> y = Linear(tw.Input(n_units=3, value=np.ones((2, 3), "float32")), 4)
>>> y.shape, y().shape.as_list()
((None, 4), [2, 4])
"""

from __future__ import annotations

import math
from typing import Any

import tensorflow as tf

import tensorweave as tw

__all__ = ["Linear"]


class Linear(tw.Layer):
    """``x @ W + b`` with ``W`` drawn Glorot-uniform and ``b`` zeros.

    Args:
        x: a rank-2 float input layer with a known width.
        n_units: the output width.
        add_bias: whether to add ``b``.
        name, share_state_with: see ``tw.Layer``.
    """

    def __init__(
        self,
        x: tw.Layer,
        n_units: int,
        *,
        add_bias: bool = True,
        name: str | None = None,
        share_state_with: Linear | None = None,
    ) -> None:
        if len(x.shape) != 2 or x.shape[-1] is None:
            raise tw.ShapeError(
                f"conflict-demo Linear needs a rank-2 input with a known width, got {x.name!r} "
                f"of shape {x.shape}. Fix: use tensorweave-layers:Linear.v1 for other ranks."
            )
        self.n_in, self.add_bias = int(x.shape[-1]), bool(add_bias)
        super().__init__(
            x,
            shape=(x.shape[0], n_units),
            dtype=x.dtype,
            name=name,
            share_state_with=share_state_with,
        )

    def init_state(self) -> None:
        """``W`` (Glorot-uniform, fresh per layer) and ``b`` (zeros)."""
        n_out = int(self.n_units or 0)
        limit = math.sqrt(6.0 / (self.n_in + n_out))
        shape = [self.n_in, n_out]
        self.state.weights = tf.Variable(
            tf.random.uniform(shape, -limit, limit, dtype=self.dtype), name="weights"
        )
        if self.add_bias:
            self.state.bias = tf.Variable(tf.zeros([self.n_units], self.dtype), name="bias")

    def compute(self, x: Any) -> Any:
        """``x @ W + b``."""
        y = tf.linalg.matmul(x, self.state.weights)
        return y + self.state.bias if self.add_bias else y
