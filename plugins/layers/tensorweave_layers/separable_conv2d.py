"""``SeparableConv2D``: depthwise-separable convolution over images ``[batch, height, width,
channels]`` (Xception's building block).

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(shape=(8, 8, 3), name="img")
>>> conv = SeparableConv2D(x, n_units=16, kernel_size=3, strides=2)
>>> conv.shape, conv.depthwise_kernel.shape.as_list(), conv.pointwise_kernel.shape.as_list()
((None, 4, 4, 16), [3, 3, 3, 1], [1, 1, 3, 16])
>>> conv.compute(tf.ones((2, 8, 8, 3))).shape.as_list()
[2, 4, 4, 16]
"""

from __future__ import annotations

from typing import ClassVar

from ._separable_conv import SeparableConv

__all__ = ["SeparableConv2D"]


class SeparableConv2D(SeparableConv):
    """Separable 2-d convolution; see ``SeparableConv`` for the options."""

    spatial_rank: ClassVar[int] = 2
