"""``GaussianDropout``: multiply by Gaussian noise of mean 1 and variance
``rate / (1 - rate)`` in training (Srivastava et al., 2014: dropout's multiplicative noise
without zeros; Keras's ``GaussianDropout``); off at inference (``training=False``).

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(n_units=1000, name="x", value=np.ones((4, 1000), "float32"))
>>> out = GaussianDropout(x, rate=0.5)().numpy()
>>> round(float(out.mean()), 1), round(float(out.std()), 1)
(1.0, 1.0)
"""

from __future__ import annotations

import math

import tensorflow as tf

import tensorweave as tw

from ._noise import Noise, check_rate
from ._shapes import owner as name_owner

__all__ = ["GaussianDropout"]


class GaussianDropout(Noise):
    """``x * N(1, rate / (1 - rate))`` in training.

    Args:
        x: the input layer (dense, floating point).
        rate: the dropout rate the noise stands for, in ``[0, 1)``.
        training: multiply by noise (``True``) or pass ``x`` through (``False``).
    """

    def __init__(
        self,
        x: tw.Layer,
        rate: float = 0.1,
        *,
        training: bool = True,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        self.rate = check_rate(rate, name_owner("GaussianDropout", name))
        self.active = self.rate > 0.0
        super().__init__(x, training=training, name=name, share_state_with=share_state_with)

    def perturb(self, x: tf.Tensor, rng: tf.random.Generator) -> tf.Tensor:
        """``x`` times one normal draw (mean 1) per entry."""
        stddev = math.sqrt(self.rate / (1.0 - self.rate))
        return x * rng.normal(tf.shape(x), mean=1.0, stddev=stddev, dtype=x.dtype)
