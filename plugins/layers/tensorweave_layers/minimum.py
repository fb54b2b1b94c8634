"""``Minimum``: the smallest input at each entry, Keras's ``Minimum``.

A padding mask of the inputs passes on (their *and*, as Keras's merges).

>>> import tensorweave as tw
>>> a = tw.Input(n_units=2, name="a", value=[[1.0, 2.0]])
>>> b = tw.Input(n_units=2, name="b", value=[[3.0, 4.0]])
>>> Minimum(a, b)().numpy().tolist()
[[1.0, 2.0]]
"""

from __future__ import annotations

import functools

import tensorflow as tf

from tensorweave_layers._elementwise import ElementwiseMerge

__all__ = ["Minimum"]


class Minimum(ElementwiseMerge):
    """The minimum of the inputs, entry by entry.

    Args:
        *inputs: dense layers of the same shape and dtype (one or more).
        name, share_state_with: see ``tw.Layer`` (no variables).
    """

    def combine(self, tensors: list[tf.Tensor]) -> tf.Tensor:
        """The minimum."""
        return functools.reduce(tf.math.minimum, tensors)
