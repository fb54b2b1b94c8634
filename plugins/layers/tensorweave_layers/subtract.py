"""``Subtract``: ``x0 - x1``, Keras's ``Subtract`` (exactly two inputs).

A padding mask of the inputs passes on (their *and*, as Keras's merges).

>>> import tensorweave as tw
>>> a = tw.Input(n_units=2, name="a", value=[[1.0, 2.0]])
>>> b = tw.Input(n_units=2, name="b", value=[[3.0, 4.0]])
>>> Subtract(a, b)().numpy().tolist()
[[-2.0, -2.0]]
"""

from __future__ import annotations

import tensorflow as tf

from tensorweave_layers._elementwise import ElementwiseMerge

__all__ = ["Subtract"]


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
