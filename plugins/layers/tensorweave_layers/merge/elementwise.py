"""``ElementwiseMerge``: the base of the merges that combine layers of one shape entry by
entry (``Multiply``, ``Subtract``, ``Average``, ``Maximum``, ``Minimum``).

A subclass says how many inputs it takes and how it ``combine`` s their tensors; the checks
(dense inputs, one shape with ``None`` matching any size, one dtype), the output shape and
the padding masks (the *and* of the inputs' masks, as Keras's merges) are shared here.

>>> import tensorflow as tf, tensorweave as tw
>>> class Hypot(ElementwiseMerge):
...     def combine(self, tensors):
...         return tf.sqrt(tf.add_n([t * t for t in tensors]))
>>> a = tw.Input(n_units=1, value=[[3.0]])
>>> Hypot(a, a * (4.0 / 3.0))().numpy().tolist()
[[5.0]]

``Multiply``: the element-wise product of several layers of one shape.

>>> import tensorweave as tw
>>> a = tw.Input(n_units=2, name="a", value=[[1.0, 2.0]])
>>> b = tw.Input(n_units=2, name="b", value=[[3.0, 4.0]])
>>> Multiply(a, b)().numpy().tolist()
[[3.0, 8.0]]

``Subtract``: ``x0 - x1``, Keras's ``Subtract`` (exactly two inputs).

A padding mask of the inputs passes on (their *and*, as Keras's merges).

>>> import tensorweave as tw
>>> a = tw.Input(n_units=2, name="a", value=[[1.0, 2.0]])
>>> b = tw.Input(n_units=2, name="b", value=[[3.0, 4.0]])
>>> Subtract(a, b)().numpy().tolist()
[[-2.0, -2.0]]

``Average``: the mean of the inputs, Keras's ``Average``.

A padding mask of the inputs passes on (their *and*, as Keras's merges).

>>> import tensorweave as tw
>>> a = tw.Input(n_units=2, name="a", value=[[1.0, 2.0]])
>>> b = tw.Input(n_units=2, name="b", value=[[3.0, 4.0]])
>>> Average(a, b)().numpy().tolist()
[[2.0, 3.0]]

``Maximum``: the largest input at each entry, Keras's ``Maximum``.

A padding mask of the inputs passes on (their *and*, as Keras's merges).

>>> import tensorweave as tw
>>> a = tw.Input(n_units=2, name="a", value=[[1.0, 2.0]])
>>> b = tw.Input(n_units=2, name="b", value=[[3.0, 4.0]])
>>> Maximum(a, b)().numpy().tolist()
[[3.0, 4.0]]

``Minimum``: the smallest input at each entry, Keras's ``Minimum``.

A padding mask of the inputs passes on (their *and*, as Keras's merges).

>>> import tensorweave as tw
>>> a = tw.Input(n_units=2, name="a", value=[[1.0, 2.0]])
>>> b = tw.Input(n_units=2, name="b", value=[[3.0, 4.0]])
>>> Minimum(a, b)().numpy().tolist()
[[1.0, 2.0]]
"""

from __future__ import annotations

import functools
from typing import Any, ClassVar

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import describe, merge_shapes, owner, require_dense

__all__ = ["ElementwiseMerge", "Multiply", "Subtract", "Average", "Maximum", "Minimum"]


class ElementwiseMerge(tw.Layer):
    """Combine dense layers of one shape and dtype entry by entry (see the module).

    Args:
        *inputs: ``min_inputs`` or more dense layers (at most ``max_inputs``).
        name, share_state_with: see ``tw.Layer`` (no variables).
    """

    keeps_padding_mask = True  # steps stay steps: the inputs' masks pass on
    min_inputs: ClassVar[int] = 1
    max_inputs: ClassVar[int | None] = None

    def __init__(
        self, *inputs: tw.Layer, name: str | None = None, share_state_with: tw.Layer | None = None
    ) -> None:
        who = owner(type(self).__name__, name)
        low, high = self.min_inputs, self.max_inputs
        if len(inputs) < low or (high is not None and len(inputs) > high):
            count = f"exactly {low}" if low == high else f"at least {low}"
            raise tw.ArgumentError(
                f"{who}: takes {count} input layer(s), got {len(inputs)}. Fix: pass "
                f"{count} layers of one shape."
            )
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

    def combine(self, tensors: list[tf.Tensor]) -> tf.Tensor:
        """The merged tensor, from one tensor per input."""
        raise NotImplementedError(f"{type(self).__name__} must define combine(tensors).")

    def compute(self, *tensors: Any) -> tf.Tensor:
        """``combine`` the inputs' tensors."""
        return self.combine(list(tensors))


class Multiply(ElementwiseMerge):
    """``x0 * x1 * ...``.

    Args:
        *inputs: one or more dense layers of the same shape and dtype.
        name, share_state_with: see ``tw.Layer`` (no variables).
    """

    def combine(self, tensors: list[tf.Tensor]) -> tf.Tensor:
        """The product."""
        return functools.reduce(tf.math.multiply, tensors)


class Subtract(ElementwiseMerge):
    """The difference of two inputs, entry by entry.

    Args:
        x0, x1: dense layers of the same shape and dtype (exactly two).
        name, share_state_with: see ``tw.Layer`` (no variables).
    """

    min_inputs = 2
    max_inputs = 2

    def combine(self, tensors: list[tf.Tensor]) -> tf.Tensor:
        """``x0 - x1``."""
        return tensors[0] - tensors[1]


class Average(ElementwiseMerge):
    """The mean of the inputs, entry by entry.

    Args:
        *inputs: dense layers of the same shape and dtype (one or more).
        name, share_state_with: see ``tw.Layer`` (no variables).
    """

    def combine(self, tensors: list[tf.Tensor]) -> tf.Tensor:
        """The mean."""
        return tf.math.add_n(tensors) / tf.cast(len(tensors), tensors[0].dtype)


class Maximum(ElementwiseMerge):
    """The maximum of the inputs, entry by entry.

    Args:
        *inputs: dense layers of the same shape and dtype (one or more).
        name, share_state_with: see ``tw.Layer`` (no variables).
    """

    def combine(self, tensors: list[tf.Tensor]) -> tf.Tensor:
        """The maximum."""
        return functools.reduce(tf.math.maximum, tensors)


class Minimum(ElementwiseMerge):
    """The minimum of the inputs, entry by entry.

    Args:
        *inputs: dense layers of the same shape and dtype (one or more).
        name, share_state_with: see ``tw.Layer`` (no variables).
    """

    def combine(self, tensors: list[tf.Tensor]) -> tf.Tensor:
        """The minimum."""
        return functools.reduce(tf.math.minimum, tensors)
