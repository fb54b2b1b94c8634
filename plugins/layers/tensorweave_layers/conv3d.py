"""``Conv3D``: 3-d convolution over volumes or clips ``[batch, depth, height, width, channels]``.

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(shape=(4, 8, 8, 3), name="clip")
>>> conv = Conv3D(x, n_units=4, kernel_size=3, padding="valid")
>>> conv.shape, conv.kernel.shape.as_list()
((None, 2, 6, 6, 4), [3, 3, 3, 3, 4])
>>> conv.compute(tf.ones((2, 4, 8, 8, 3))).shape.as_list()
[2, 2, 6, 6, 4]
"""

from __future__ import annotations

from typing import ClassVar

from ._conv import Conv

__all__ = ["Conv3D"]


class Conv3D(Conv):
    """3-d convolution; see ``Conv`` for the options (``n_units`` filters, ``kernel_size``,
    ``groups``…)."""

    spatial_rank: ClassVar[int] = 3
