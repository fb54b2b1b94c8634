"""``SpatialDropout2D``: dropout of images ``[batch, height, width, channels]``: drops whole feature maps
(see ``SpatialDropout``); off at inference (``training=False``).

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(shape=(4, 4, 8), name="x", value=np.ones((2, 4, 4, 8), "float32"))
>>> drop = SpatialDropout2D(x, rate=0.5)
>>> sorted(set(drop().numpy().ravel().tolist())) in ([0.0, 2.0], [2.0], [0.0])
True
>>> bool(np.all(tw.with_options(drop, training=False)().numpy() == 1.0))
True
"""

from __future__ import annotations

from ._spatial_dropout import SpatialDropout

__all__ = ["SpatialDropout2D"]


class SpatialDropout2D(SpatialDropout):
    """Channel dropout over 2 spatial axes; see ``SpatialDropout`` for ``rate``, ``training``."""

    spatial_rank = 2
