"""``SeparableConv1D``: depthwise-separable convolution over sequences ``[batch, time,
channels]``.

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(batch_shape=(None, None, 4), name="seq")
>>> conv = SeparableConv1D(x, n_units=8, kernel_size=3, depth_multiplier=2, activation="relu")
>>> conv.depthwise_kernel.shape.as_list(), conv.pointwise_kernel.shape.as_list()
([3, 4, 2], [1, 8, 8])
>>> conv.compute(tf.ones((2, 5, 4))).shape.as_list()
[2, 5, 8]
"""

from __future__ import annotations

from typing import ClassVar

from ._separable_conv import SeparableConv

__all__ = ["SeparableConv1D"]


class SeparableConv1D(SeparableConv):
    """Separable 1-d convolution; see ``SeparableConv`` for the options."""

    spatial_rank: ClassVar[int] = 1
