"""``SpatialDropout``: dropout of whole channels (feature maps) of ``[batch, *spatial,
channels]``, which ``SpatialDropout1D/2D/3D`` set to a rank (Tompson et al., 2014): each
example keeps or drops each channel at every position together, scaled by
``1 / (1 - rate)``, which regularizes convolutions whose neighbouring activations are
correlated. A ``Noise`` layer: in training only.

>>> import numpy as np, tensorweave as tw
>>> class SpatialDropout1D(SpatialDropout):
...     spatial_rank = 1
>>> x = tw.Input(shape=(4, 100), value=np.ones((1, 4, 100), "float32"))
>>> out = SpatialDropout1D(x, rate=0.5)().numpy()
>>> bool(np.all(out == out[:, :1])), sorted(set(out.ravel().tolist()))   # whole channels
(True, [0.0, 2.0])
"""

from __future__ import annotations

from typing import ClassVar

import tensorflow as tf

import tensorweave as tw

from ._noise import Noise, check_rate
from ._shapes import owner as name_owner
from ._spatial import check_spatial

__all__ = ["SpatialDropout"]


class SpatialDropout(Noise):
    """Drop whole channels with probability ``rate`` in training.

    Args:
        x: the input ``[batch, *spatial, channels]`` (dense, floating point).
        rate: the chance of dropping each channel of each example, in ``[0, 1)``.
        training: drop (``True``) or pass ``x`` through (``False``).
    """

    spatial_rank: ClassVar[int] = 2

    def __init__(
        self,
        x: tw.Layer,
        rate: float = 0.5,
        *,
        training: bool = True,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        owner = name_owner(type(self).__name__, name)
        check_spatial(x, type(self).__name__, self.spatial_rank, owner)
        self.rate = check_rate(rate, owner)
        self.active = self.rate > 0.0
        super().__init__(x, training=training, name=name, share_state_with=share_state_with)

    def perturb(self, x: tf.Tensor, rng: tf.random.Generator) -> tf.Tensor:
        """``x * keep / (1 - rate)`` with one draw per example and channel."""
        shape = tf.shape(x)
        noise_shape = tf.concat([shape[:1], [1] * self.spatial_rank, shape[-1:]], axis=0)
        keep = rng.uniform(noise_shape) >= self.rate
        return x * (tf.cast(keep, x.dtype) / tf.constant(1.0 - self.rate, x.dtype))
