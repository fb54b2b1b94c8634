"""``Conv2DTranspose``: 2-d transposed convolution (upsampling) over images ``[batch, height, width, channels]``.

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(shape=(4, 4, 3), name="x")
>>> up = Conv2DTranspose(x, n_units=4, kernel_size=3, strides=2, activation="relu")
>>> up.shape, up.kernel.shape.as_list()[-2:]
((None, 8, 8, 4), [4, 3])
>>> up.compute(tf.ones((2, 4, 4, 3))).shape.as_list()
[2, 8, 8, 4]
"""

from __future__ import annotations

from typing import ClassVar

from ._conv_transpose import ConvTranspose

__all__ = ["Conv2DTranspose"]


class Conv2DTranspose(ConvTranspose):
    """2-d transposed convolution; see ``ConvTranspose`` for the options (``n_units``,
    ``kernel_size``, ``strides``, ``output_padding``…)."""

    spatial_rank: ClassVar[int] = 2
