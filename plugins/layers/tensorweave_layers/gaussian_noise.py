"""``GaussianNoise``: add zero-mean Gaussian noise of ``stddev`` in training (data
augmentation for real-valued inputs, Keras's ``GaussianNoise``); off at inference
(``training=False``, as every noise layer).

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(n_units=1000, name="x", value=np.zeros((2, 1000), "float32"))
>>> noisy = GaussianNoise(x, stddev=0.5)
>>> round(float(noisy().numpy().std()), 1)
0.5
>>> float(abs(noisy.reuse_with(x, training=False)().numpy()).max())
0.0
"""

from __future__ import annotations

import tensorflow as tf

import tensorweave as tw

from ._noise import Noise
from ._shapes import owner as name_owner

__all__ = ["GaussianNoise"]


class GaussianNoise(Noise):
    """``x + N(0, stddev ** 2)`` in training.

    Args:
        x: the input layer (dense, floating point).
        stddev: the noise's standard deviation, ``>= 0``.
        training: add noise (``True``) or pass ``x`` through (``False``).
    """

    def __init__(
        self,
        x: tw.Layer,
        stddev: float = 0.1,
        *,
        training: bool = True,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        owner = name_owner("GaussianNoise", name)
        if isinstance(stddev, bool) or not isinstance(stddev, int | float) or stddev < 0:
            raise tw.ArgumentError(f"{owner}: stddev must be a number >= 0, got {stddev!r}.")
        self.stddev = float(stddev)
        self.active = self.stddev > 0.0
        super().__init__(x, training=training, name=name, share_state_with=share_state_with)

    def perturb(self, x: tf.Tensor, rng: tf.random.Generator) -> tf.Tensor:
        """``x`` plus one normal draw per entry."""
        return x + rng.normal(tf.shape(x), stddev=self.stddev, dtype=x.dtype)
