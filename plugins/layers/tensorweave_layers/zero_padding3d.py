"""``ZeroPadding3D``: zeros around volumes ``[batch, depth, height, width, channels]``
(see ``ZeroPadding``).

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(shape=(2, 4, 4, 1), name="x")
>>> padded = ZeroPadding3D(x, (1, 0, (2, 1)))
>>> padded.shape, padded.compute(tf.ones((1, 2, 4, 4, 1))).shape.as_list()
((None, 4, 4, 7, 1), [1, 4, 4, 7, 1])
"""

from __future__ import annotations

from ._zero_padding import ZeroPadding

__all__ = ["ZeroPadding3D"]


class ZeroPadding3D(ZeroPadding):
    """Zero padding of 3 spatial axes; see ``ZeroPadding`` for ``padding``."""

    spatial_rank = 3
