"""``Average``: the mean of the inputs, Keras's ``Average``.

A padding mask of the inputs passes on (their *and*, as Keras's merges).

>>> import tensorweave as tw
>>> a = tw.Input(n_units=2, name="a", value=[[1.0, 2.0]])
>>> b = tw.Input(n_units=2, name="b", value=[[3.0, 4.0]])
>>> Average(a, b)().numpy().tolist()
[[2.0, 3.0]]
"""

from __future__ import annotations

import tensorflow as tf

from tensorweave_layers._elementwise import ElementwiseMerge

__all__ = ["Average"]


class Average(ElementwiseMerge):
    """The mean of the inputs, entry by entry.

    Args:
        *inputs: dense layers of the same shape and dtype (one or more).
        name, share_state_with: see ``tw.Layer`` (no variables).
    """

    def combine(self, tensors: list[tf.Tensor]) -> tf.Tensor:
        """The mean."""
        return tf.math.add_n(tensors) / tf.cast(len(tensors), tensors[0].dtype)
