"""``Multiply``: the element-wise product of several layers of one shape.

>>> import tensorweave as tw
>>> a = tw.Input(n_units=2, name="a", value=[[1.0, 2.0]])
>>> b = tw.Input(n_units=2, name="b", value=[[3.0, 4.0]])
>>> Multiply(a, b)().numpy().tolist()
[[3.0, 8.0]]
"""

from __future__ import annotations

import functools

import tensorflow as tf

from tensorweave_layers._elementwise import ElementwiseMerge

__all__ = ["Multiply"]


class Multiply(ElementwiseMerge):
    """``x0 * x1 * ...``.

    Args:
        *inputs: one or more dense layers of the same shape and dtype.
        name, share_state_with: see ``tw.Layer`` (no variables).
    """

    def combine(self, tensors: list[tf.Tensor]) -> tf.Tensor:
        """The product."""
        return functools.reduce(tf.math.multiply, tensors)
