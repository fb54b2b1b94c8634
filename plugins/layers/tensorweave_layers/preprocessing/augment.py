"""Image augmentation as Keras's: ``RandomFlip``, ``RandomContrast``, ``RandomBrightness``.

Each draws one transformation per image of a batch ``[batch, height, width, channels]``
while ``training`` and is the identity otherwise: ``layer.reuse_with(x, training=False)``,
and so the inference graph every training pack makes with ``tw.with_options(...,
training=False)`` (predict, evaluate, export), applies none, without being asked. The draws
come from the layer's own generator (``self.state.generator()``): seeded by
``tf.random.set_seed`` (a run's seed), saved in checkpoints, so a resumed run sees the same
augmentations as an uninterrupted one; ``reuse_with`` shares it.

>>> import numpy as np, tensorflow as tf, tensorweave as tw
>>> x = tw.Input(shape=(1, 2, 1), name="img", value=np.array([[[[1.0], [2.0]]]] * 8))
>>> flip = RandomFlip(x, mode="horizontal")
>>> sorted({tuple(row) for row in flip().numpy().reshape(8, 2).tolist()})
[(1.0, 2.0), (2.0, 1.0)]
>>> flip.reuse_with(x, training=False)().numpy().reshape(8, 2)[0].tolist()
[1.0, 2.0]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner as name_owner
from tensorweave_layers._spatial import describe

__all__ = ["Augment", "RandomBrightness", "RandomContrast", "RandomFlip"]

Factor = float | Sequence[float]


class Augment(tw.Layer):
    """An image augmentation: ``augment(images, rng)`` while training, else the identity."""

    layer_type = "Augment"

    def __init__(
        self,
        x: tw.Layer,
        *,
        training: bool,
        name: str | None,
        share_state_with: tw.Layer | None,
        shape: tuple[int | None, ...] | None = None,
    ) -> None:
        owner = name_owner(self.layer_type, name)
        if x.sparse or len(x.shape) != 4 or not (x.dtype.is_floating or x.dtype.is_integer):
            raise tw.ShapeError(
                f"{owner} takes a batch of images [batch, height, width, channels] of numbers, "
                f"got {describe(x)} {x.dtype.name}. Fix: reshape the input to rank 4 (add a "
                "channel axis to gray images)."
            )
        self.training = bool(training)
        out = x.dtype if x.dtype.is_floating else tf.float32
        super().__init__(
            x, shape=x.shape if shape is None else shape, dtype=out, name=name,
            share_state_with=share_state_with,
        )  # fmt: skip

    def init_state(self) -> None:
        """The random generator (checkpointed, so a resumed run draws on)."""
        self.state.generator()

    def compute(self, x: Any) -> tf.Tensor:
        """Augmented images while training; ``x`` unchanged otherwise."""
        x = tf.cast(x, self.compute_dtype)
        if not self.training:
            return self.infer(x)
        return self.augment(x, self.state.rng)

    def infer(self, x: tf.Tensor) -> tf.Tensor:
        """What the layer does at inference: nothing (``RandomCrop`` crops the centre)."""
        return tf.identity(x)

    def augment(self, x: tf.Tensor, rng: tf.random.Generator) -> tf.Tensor:
        raise NotImplementedError

    def _draw(self, x: tf.Tensor, rng: tf.random.Generator, low: float, high: float) -> tf.Tensor:
        """One uniform number in ``[low, high)`` per image, shaped to broadcast on ``x``."""
        shape = tf.stack([tf.shape(x)[0], 1, 1, 1])
        return tf.cast(rng.uniform(shape, low, high, dtype=tf.float32), x.dtype)

    def reuse_with(  # type: ignore[override]  # explicit per-use options
        self, x: tw.Layer, *, training: bool | None = None, name: str | None = None
    ) -> Augment:
        """A node on ``x`` sharing the generator; ``training=False`` is the identity."""
        options = {k: getattr(self, k) for k in self.options}
        return type(self)(
            x,
            training=self.training if training is None else training,
            name=name,
            share_state_with=self,
            **options,
        )

    options: tuple[str, ...] = ()


def _factor(factor: Factor, owner: str, low: float, high: float) -> tuple[float, float]:
    """Keras's ``factor``: ``f`` means ``(-f, f)``; a pair is ``(lower, upper)``."""
    if isinstance(factor, int | float):
        pair = (-abs(float(factor)), abs(float(factor)))
    elif len(factor) == 2:
        pair = (float(factor[0]), float(factor[1]))
    else:
        raise tw.ArgumentError(f"{owner}: factor is a number or a pair, got {factor!r}.")
    if not low <= pair[0] <= pair[1] <= high:
        raise tw.ArgumentError(
            f"{owner}: factor {factor!r} must give lower <= upper within [{low}, {high}]."
        )
    return pair


def _range(value_range: Sequence[float], owner: str) -> tuple[float, float]:
    lo, hi = (float(v) for v in value_range)
    if not lo < hi:
        raise tw.ArgumentError(f"{owner}: value_range must be (low, high), got {value_range!r}.")
    return lo, hi


class RandomFlip(Augment):
    """Flip each image left-right and/or up-down, each with probability 1/2.

    Args:
        x: images ``[batch, height, width, channels]``.
        mode: ``"horizontal"``, ``"vertical"`` or ``"horizontal_and_vertical"`` (Keras's).
        training: flip (``True``) or pass the images through (``False``).
    """

    layer_type = "RandomFlip"
    options = ("mode",)
    MODES = ("horizontal", "vertical", "horizontal_and_vertical")

    def __init__(
        self,
        x: tw.Layer,
        *,
        mode: str = "horizontal_and_vertical",
        training: bool = True,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        if mode not in self.MODES:
            raise tw.ArgumentError(
                f"{name_owner('RandomFlip', name)}: mode must be one of {self.MODES}, got {mode!r}."
            )
        self.mode = mode
        super().__init__(x, training=training, name=name, share_state_with=share_state_with)

    def augment(self, x: tf.Tensor, rng: tf.random.Generator) -> tf.Tensor:
        """Flip a random half of the images along each axis the mode names."""
        for axis, used in ((2, "horizontal" in self.mode), (1, "vertical" in self.mode)):
            if used:
                flip = self._draw(x, rng, 0.0, 1.0) < tf.constant(0.5, x.dtype)
                x = tf.where(flip, tf.reverse(x, [axis]), x)
        return x


class RandomContrast(Augment):
    """Scale each image's deviation from its per-channel mean by a random factor in
    ``[1 - lower, 1 + upper]``, then clip to ``value_range``.

    Args:
        x: images ``[batch, height, width, channels]``.
        factor: ``f`` (for ``[1 - f, 1 + f]``) or ``(lower, upper)``, each in ``[0, 1]``.
        value_range: the images' range, kept after the change (Keras's default ``(0, 255)``).
        training: change the contrast (``True``) or pass the images through (``False``).
    """

    layer_type = "RandomContrast"
    options = ("factor", "value_range")

    def __init__(
        self,
        x: tw.Layer,
        *,
        factor: Factor,
        value_range: Sequence[float] = (0, 255),
        training: bool = True,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        owner = name_owner("RandomContrast", name)
        pair = (factor, factor) if isinstance(factor, int | float) else tuple(factor)
        if len(pair) != 2 or not all(0.0 <= float(f) <= 1.0 for f in pair):
            raise tw.ArgumentError(
                f"{owner}: factor is a number or a pair (lower, upper), each in [0, 1], for "
                f"contrast factors in [1 - lower, 1 + upper]; got {factor!r}."
            )
        self.bounds = (float(pair[0]), float(pair[1]))
        self.factor = factor
        self.value_range = _range(value_range, owner)
        super().__init__(x, training=training, name=name, share_state_with=share_state_with)

    def augment(self, x: tf.Tensor, rng: tf.random.Generator) -> tf.Tensor:
        """``(x - mean) * factor + mean`` per image and channel, clipped."""
        factor = self._draw(x, rng, 1.0 - self.bounds[0], 1.0 + self.bounds[1])
        mean = tf.reduce_mean(x, axis=[1, 2], keepdims=True)
        lo, hi = self.value_range
        return tf.clip_by_value((x - mean) * factor + mean, lo, hi)


class RandomBrightness(Augment):
    """Add one random delta per image, ``uniform(lower, upper) * (high - low)`` of the
    ``value_range``, then clip to it.

    Args:
        x: images ``[batch, height, width, channels]``.
        factor: ``f`` (for ``[-f, f]``) or ``(lower, upper)``, within ``[-1, 1]``.
        value_range: the images' range (Keras's default ``(0, 255)``).
        training: change the brightness (``True``) or pass the images through (``False``).
    """

    layer_type = "RandomBrightness"
    options = ("factor", "value_range")

    def __init__(
        self,
        x: tw.Layer,
        *,
        factor: Factor,
        value_range: Sequence[float] = (0, 255),
        training: bool = True,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        owner = name_owner("RandomBrightness", name)
        self.bounds = _factor(factor, owner, -1.0, 1.0)
        self.factor = factor
        self.value_range = _range(value_range, owner)
        super().__init__(x, training=training, name=name, share_state_with=share_state_with)

    def augment(self, x: tf.Tensor, rng: tf.random.Generator) -> tf.Tensor:
        """``x + delta`` per image, clipped to ``value_range``."""
        lo, hi = self.value_range
        delta = self._draw(x, rng, *self.bounds) * tf.constant(hi - lo, x.dtype)
        return tf.clip_by_value(x + delta, lo, hi)
