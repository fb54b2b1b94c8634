"""``Conv2D``: 2-d convolution over images ``[batch, height, width, channels]``.

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(shape=(8, 8, 4), name="img")
>>> conv = Conv2D(x, n_units=6, kernel_size=(3, 3), strides=2, groups=2, activation="relu")
>>> conv.shape, conv.kernel.shape.as_list()
((None, 4, 4, 6), [3, 3, 2, 6])
>>> conv.compute(tf.ones((2, 8, 8, 4))).shape.as_list()
[2, 4, 4, 6]
>>> conv.reuse_with(tw.Input(shape=(6, 6, 4)), padding="valid").shape  # same kernel
(None, 2, 2, 6)
"""

from __future__ import annotations

from typing import ClassVar

from ._conv import Conv

__all__ = ["Conv2D"]


class Conv2D(Conv):
    """2-d convolution; see ``Conv`` for the options (``n_units`` filters, ``kernel_size``,
    ``groups``…)."""

    spatial_rank: ClassVar[int] = 2
