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

``SpatialDropout1D``: dropout of sequences ``[batch, time, channels]``: drops whole channels at every step
(see ``SpatialDropout``); off at inference (``training=False``).

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(batch_shape=(None, None, 8), name="x", value=np.ones((2, 5, 8), "float32"))
>>> drop = SpatialDropout1D(x, rate=0.5)
>>> sorted(set(drop().numpy().ravel().tolist())) in ([0.0, 2.0], [2.0], [0.0])
True
>>> bool(np.all(tw.with_options(drop, training=False)().numpy() == 1.0))
True

``SpatialDropout2D``: dropout of images ``[batch, height, width, channels]``: drops whole feature maps
(see ``SpatialDropout``); off at inference (``training=False``).

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(shape=(4, 4, 8), name="x", value=np.ones((2, 4, 4, 8), "float32"))
>>> drop = SpatialDropout2D(x, rate=0.5)
>>> sorted(set(drop().numpy().ravel().tolist())) in ([0.0, 2.0], [2.0], [0.0])
True
>>> bool(np.all(tw.with_options(drop, training=False)().numpy() == 1.0))
True

``SpatialDropout3D``: dropout of volumes ``[batch, depth, height, width, channels]``: drops whole feature volumes
(see ``SpatialDropout``); off at inference (``training=False``).

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(shape=(2, 4, 4, 8), name="x", value=np.ones((2, 2, 4, 4, 8), "float32"))
>>> drop = SpatialDropout3D(x, rate=0.5)
>>> sorted(set(drop().numpy().ravel().tolist())) in ([0.0, 2.0], [2.0], [0.0])
True
>>> bool(np.all(tw.with_options(drop, training=False)().numpy() == 1.0))
True
"""

from __future__ import annotations

from typing import ClassVar

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner as name_owner
from tensorweave_layers._spatial import check_spatial
from tensorweave_layers.dropout.noise import Noise, check_rate

__all__ = ["SpatialDropout", "SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D"]


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


class SpatialDropout1D(SpatialDropout):
    """Channel dropout over 1 spatial axis; see ``SpatialDropout`` for ``rate``, ``training``."""

    spatial_rank = 1


class SpatialDropout2D(SpatialDropout):
    """Channel dropout over 2 spatial axes; see ``SpatialDropout`` for ``rate``, ``training``."""

    spatial_rank = 2


class SpatialDropout3D(SpatialDropout):
    """Channel dropout over 3 spatial axes; see ``SpatialDropout`` for ``rate``, ``training``."""

    spatial_rank = 3
