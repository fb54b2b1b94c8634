"""``Conv2D``: 2-d convolution over images ``[batch, height, width, channels]``.

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(shape=(8, 8, 3), name="img")
>>> conv = Conv2D(x, n_units=4, kernel_size=(3, 3), stride=2)
>>> conv.shape
(None, 4, 4, 4)
>>> conv.compute(tf.ones((2, 8, 8, 3))).shape.as_list()
[2, 4, 4, 4]
>>> conv.reuse_with(tw.Input(shape=(6, 6, 3)), padding="valid").shape  # same kernel
(None, 2, 2, 4)
"""

from __future__ import annotations

from typing import ClassVar

from ._conv import Conv

__all__ = ["Conv2D"]


class Conv2D(Conv):
    """2-d convolution; see ``Conv`` for the options (``n_units`` filters, ``kernel_size``…)."""

    spatial_rank: ClassVar[int] = 2
    layout: ClassVar[str] = "[batch, height, width, channels]"
