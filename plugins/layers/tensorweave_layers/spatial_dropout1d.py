"""``SpatialDropout1D``: dropout of sequences ``[batch, time, channels]``: drops whole channels at every step
(see ``SpatialDropout``); off at inference (``training=False``).

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(batch_shape=(None, None, 8), name="x", value=np.ones((2, 5, 8), "float32"))
>>> drop = SpatialDropout1D(x, rate=0.5)
>>> sorted(set(drop().numpy().ravel().tolist())) in ([0.0, 2.0], [2.0], [0.0])
True
>>> bool(np.all(tw.with_options(drop, training=False)().numpy() == 1.0))
True
"""

from __future__ import annotations

from ._spatial_dropout import SpatialDropout

__all__ = ["SpatialDropout1D"]


class SpatialDropout1D(SpatialDropout):
    """Channel dropout over 1 spatial axis; see ``SpatialDropout`` for ``rate``, ``training``."""

    spatial_rank = 1
