"""``AlphaDropout``: the dropout of self-normalizing networks (Klambauer et al., 2017; with
``selu`` and ``lecun_normal``): dropped entries take SELU's negative saturation value and
an affine correction keeps the mean and variance of the input, as Keras's
``AlphaDropout``; off at inference (``training=False``).

>>> import numpy as np, tensorweave as tw
>>> value = np.random.default_rng(0).standard_normal((8, 2000)).astype("float32")
>>> x = tw.Input(n_units=2000, name="x", value=value)
>>> out = AlphaDropout(x, rate=0.2)().numpy()
>>> round(float(out.mean()), 1) + 0.0, round(float(out.std()), 1)
(0.0, 1.0)
"""

from __future__ import annotations

from collections.abc import Sequence

import tensorflow as tf

import tensorweave as tw

from ._noise import Noise, check_rate
from ._shapes import describe
from ._shapes import owner as name_owner

__all__ = ["AlphaDropout"]

#: SELU's constants; a dropped entry is set to ``-ALPHA * SCALE``, SELU's lower limit
ALPHA = 1.6732632423543772848170429916717
SCALE = 1.0507009873554804934193349852946


class AlphaDropout(Noise):
    """Alpha dropout with probability ``rate`` in training.

    Args:
        x: the input layer (dense, floating point).
        rate: the chance of dropping each entry, in ``[0, 1)``.
        noise_shape: the shape of the keep mask, broadcast over ``x`` (``None`` entries
            follow the input); ``None`` for one draw per entry.
        training: drop (``True``) or pass ``x`` through (``False``).
    """

    def __init__(
        self,
        x: tw.Layer,
        rate: float = 0.1,
        *,
        noise_shape: Sequence[int | None] | None = None,
        training: bool = True,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        owner = name_owner("AlphaDropout", name)
        self.rate = check_rate(rate, owner)
        self.active = self.rate > 0.0
        self.noise_shape = None if noise_shape is None else tuple(noise_shape)
        if self.noise_shape is not None and len(self.noise_shape) != len(x.shape):
            raise tw.ShapeError(
                f"{owner}: noise_shape {self.noise_shape} must have the rank of the input "
                f"{describe(x)}. Fix: one entry per axis, None for 'as the input'."
            )
        super().__init__(x, training=training, name=name, share_state_with=share_state_with)

    def perturb(self, x: tf.Tensor, rng: tf.random.Generator) -> tf.Tensor:
        """``a * (x kept, or -ALPHA * SCALE dropped) + b``, keeping mean and variance."""
        shape = tf.shape(x)
        if self.noise_shape is not None:
            shape = tf.stack([shape[i] if n is None else n for i, n in enumerate(self.noise_shape)])
        kept = tf.cast(rng.uniform(shape) >= self.rate, x.dtype)
        alpha_p = -ALPHA * SCALE
        a = ((1.0 - self.rate) * (1.0 + self.rate * alpha_p**2)) ** -0.5
        b = -a * alpha_p * self.rate
        return a * (x * kept + alpha_p * (1.0 - kept)) + b
