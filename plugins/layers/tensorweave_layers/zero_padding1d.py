"""``ZeroPadding1D``: zeros around sequences ``[batch, time, channels]``
(see ``ZeroPadding``).

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(batch_shape=(None, None, 2), name="x")
>>> padded = ZeroPadding1D(x, (1, 2))
>>> padded.shape, padded.compute(tf.ones((1, 4, 2))).shape.as_list()
((None, None, 2), [1, 7, 2])
"""

from __future__ import annotations

from ._zero_padding import ZeroPadding

__all__ = ["ZeroPadding1D"]


class ZeroPadding1D(ZeroPadding):
    """Zero padding of 1 spatial axis; see ``ZeroPadding`` for ``padding``."""

    spatial_rank = 1
