"""``Noise``: the base of the layers that perturb their input at random in training only
(spatial dropout, Gaussian noise and dropout, alpha dropout).

Each follows the one ``training`` switch: a node made with ``training=True`` (the default)
perturbs, and the inference graph ``tw.with_options(outputs, training=False)`` (what
``Model`` evaluates and predicts with) passes its input through, without anything else to
set. Draws come from the layer state's generator (``self.state.generator()``): seeded by
``tf.random.set_seed``, shared by ``reuse_with``, saved by checkpoints. A subclass says
whether it is ``active`` (a rate above zero) and how to ``perturb`` a tensor.

>>> import numpy as np, tensorflow as tf, tensorweave as tw
>>> class Shift(Noise):
...     active = True
...     def perturb(self, x, rng):
...         return x + rng.uniform([])
>>> x = tw.Input(n_units=2, name="x", value=np.zeros((1, 2), "float32"))
>>> noisy = Shift(x)
>>> bool(np.all(noisy().numpy() > 0)), tw.with_options(noisy, training=False)().numpy().tolist()
(True, [[0.0, 0.0]])

``GaussianNoise``: add zero-mean Gaussian noise of ``stddev`` in training (data
augmentation for real-valued inputs, Keras's ``GaussianNoise``); off at inference
(``training=False``, as every noise layer).

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(n_units=1000, name="x", value=np.zeros((2, 1000), "float32"))
>>> noisy = GaussianNoise(x, stddev=0.5)
>>> round(float(noisy().numpy().std()), 1)
0.5
>>> float(abs(noisy.reuse_with(x, training=False)().numpy()).max())
0.0

``GaussianDropout``: multiply by Gaussian noise of mean 1 and variance
``rate / (1 - rate)`` in training (Srivastava et al., 2014: dropout's multiplicative noise
without zeros; Keras's ``GaussianDropout``); off at inference (``training=False``).

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(n_units=1000, name="x", value=np.ones((4, 1000), "float32"))
>>> out = GaussianDropout(x, rate=0.5)().numpy()
>>> round(float(out.mean()), 1), round(float(out.std()), 1)
(1.0, 1.0)

``AlphaDropout``: the dropout of self-normalizing networks (Klambauer et al., 2017; with
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

import math
from collections.abc import Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import describe
from tensorweave_layers._shapes import owner as name_owner

__all__ = ["Noise", "check_rate", "GaussianNoise", "GaussianDropout", "AlphaDropout"]


def check_rate(rate: float, owner: str) -> float:
    """``rate`` as a float in ``[0, 1)``, or an ``ArgumentError`` naming the layer."""
    if isinstance(rate, bool) or not isinstance(rate, int | float) or not 0.0 <= rate < 1.0:
        raise tw.ArgumentError(f"{owner}: rate must be a number in [0, 1), got {rate!r}.")
    return float(rate)


class Noise(tw.Layer):
    """Perturb ``x`` at random when ``training``, pass it through otherwise.

    Args:
        x: the input layer (dense, floating point).
        training: perturb (``True``) or be the identity (``False``).
        name, share_state_with: see ``tw.Layer``.
    """

    #: whether the perturbation does anything (subclasses: e.g. ``rate > 0``)
    active: bool = True

    def __init__(
        self,
        x: tw.Layer,
        *,
        training: bool = True,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        owner = name_owner(type(self).__name__, name)
        if x.sparse or not x.dtype.is_floating:
            raise tw.ShapeError(
                f"{owner}: needs a dense floating-point input, got {describe(x)} "
                f"({x.dtype.name}). Fix: densify or cast it (tw.ops.cast(x, tf.float32))."
            )
        self.training = bool(training)
        super().__init__(
            x, shape=x.shape, dtype=x.dtype, name=name, share_state_with=share_state_with
        )

    def init_state(self) -> None:
        """The random generator (checkpointed, so a resumed run draws on)."""
        self.state.generator()

    def perturb(self, x: tf.Tensor, rng: tf.random.Generator) -> tf.Tensor:
        """The perturbed ``x`` (training only), drawing from ``rng``."""
        raise NotImplementedError(f"{type(self).__name__} does not implement perturb(x, rng).")

    def compute(self, x: Any) -> tf.Tensor:
        """``perturb(x)`` in training (when active), ``x`` otherwise."""
        x = tf.convert_to_tensor(x)
        if self.training and self.active:
            return self.perturb(x, self.state.generator())
        return tf.identity(x)


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
