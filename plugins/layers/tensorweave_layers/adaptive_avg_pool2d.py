"""``AdaptiveAvgPool2D``: average pooling of images to a fixed ``output_size``, whatever their
size (windows as PyTorch's and Keras's adaptive pooling; see ``AdaptivePool``).

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(batch_shape=(None, None, None, 3), name="img")   # any height and width
>>> pool = AdaptiveAvgPool2D(x, output_size=(2, 3))
>>> pool.shape
(None, 2, 3, 3)
>>> pool.compute(tf.ones((2, 7, 9, 3))).shape.as_list(), pool.compute(tf.ones((1, 4, 4, 3))).shape.as_list()
([2, 2, 3, 3], [1, 2, 3, 3])
"""

from __future__ import annotations

from ._adaptive_pool import AdaptivePool

__all__ = ["AdaptiveAvgPool2D"]


class AdaptiveAvgPool2D(AdaptivePool):
    """Average of ``[batch, height, width, channels]`` over adaptive windows, to
    ``[batch, *output_size, channels]``."""

    spatial_rank = 2
    pooling = "AVG"
