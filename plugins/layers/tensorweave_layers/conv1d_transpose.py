"""``Conv1DTranspose``: 1-d transposed convolution (upsampling) over sequences ``[batch, time, channels]``.

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(batch_shape=(None, None, 3), name="x")
>>> up = Conv1DTranspose(x, n_units=4, kernel_size=3, strides=2, activation="relu")
>>> up.shape, up.kernel.shape.as_list()[-2:]
((None, None, 4), [4, 3])
>>> up.compute(tf.ones((2, 5, 3))).shape.as_list()
[2, 10, 4]
"""

from __future__ import annotations

from typing import ClassVar

from ._conv_transpose import ConvTranspose

__all__ = ["Conv1DTranspose"]


class Conv1DTranspose(ConvTranspose):
    """1-d transposed convolution; see ``ConvTranspose`` for the options (``n_units``,
    ``kernel_size``, ``strides``, ``output_padding``…)."""

    spatial_rank: ClassVar[int] = 1
