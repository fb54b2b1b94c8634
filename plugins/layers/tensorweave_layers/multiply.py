"""``Multiply``: the element-wise product of several layers of one shape.

>>> import tensorweave as tw
>>> a = tw.Input(n_units=2, name="a", value=[[1.0, 2.0]])
>>> b = tw.Input(n_units=2, name="b", value=[[3.0, 4.0]])
>>> Multiply(a, b)().numpy().tolist()
[[3.0, 8.0]]
"""

from __future__ import annotations

import functools
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import describe, merge_shapes, owner, require_dense

__all__ = ["Multiply"]


class Multiply(tw.Layer):
    """``x0 * x1 * ...``.

    Args:
        *inputs: two or more dense layers of the same shape and dtype.
        name, share_state_with: see ``tw.Layer`` (no variables).
    """

    def __init__(
        self, *inputs: tw.Layer, name: str | None = None, share_state_with: Multiply | None = None
    ) -> None:
        who = owner("Multiply", name)
        if len(inputs) < 1:
            raise ValueError(f"{who}: needs at least one input layer.")
        for layer in inputs:
            require_dense(layer, who)
        shape = merge_shapes(
            [i.shape for i in inputs],
            who,
            "give every input the same shape (Linear, Reshape).",
            [describe(i) for i in inputs],
        )
        if len({i.dtype for i in inputs}) > 1:
            raise TypeError(f"{who}: inputs have different dtypes. Fix: cast them to one dtype.")
        super().__init__(
            *inputs,
            shape=shape,
            dtype=inputs[0].dtype,
            name=name,
            share_state_with=share_state_with,
        )

    def compute(self, *tensors: Any) -> tf.Tensor:
        """The product."""
        return functools.reduce(tf.math.multiply, tensors)
