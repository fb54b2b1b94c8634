"""``ZeroPadding2D``: zeros around images ``[batch, height, width, channels]``
(see ``ZeroPadding``).

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(shape=(4, 4, 3), name="x")
>>> padded = ZeroPadding2D(x, 1)
>>> padded.shape, padded.compute(tf.ones((1, 4, 4, 3))).shape.as_list()
((None, 6, 6, 3), [1, 6, 6, 3])
"""

from __future__ import annotations

from ._zero_padding import ZeroPadding

__all__ = ["ZeroPadding2D"]


class ZeroPadding2D(ZeroPadding):
    """Zero padding of 2 spatial axes; see ``ZeroPadding`` for ``padding``."""

    spatial_rank = 2
