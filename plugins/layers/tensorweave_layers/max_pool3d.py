"""``MaxPool3D``: max over windows of volumes ``[batch, depth, height, width, channels]``.

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(shape=(4, 6, 6, 2), name="clip")
>>> MaxPool3D(x, pool_size=2).shape, MaxPool3D(x, 3, strides=1, padding="same").shape
((None, 2, 3, 3, 2), (None, 4, 6, 6, 2))
>>> MaxPool3D(x, (1, 2, 2)).compute(tf.ones((1, 4, 6, 6, 2))).shape.as_list()
[1, 4, 3, 3, 2]
"""

from __future__ import annotations

from .pooling import Pool

__all__ = ["MaxPool3D"]


class MaxPool3D(Pool):
    """Max over windows of ``[batch, depth, height, width, channels]``; see ``Pool`` for
    the options (``pool_size``, ``strides``, ``padding``)."""

    spatial_rank = 3
    pooling = "MAX"
