"""Geometric augmentation as Keras's: ``RandomRotation``, ``RandomZoom``,
``RandomTranslation`` and ``RandomCrop``.

Like the other augmentations (``augment``), each draws its transformation while
``training`` from the layer's own generator (seeded by the run's seed, checkpointed) and
does nothing at inference, without being asked; ``RandomCrop``, whose output is smaller,
crops the centre at inference (see ``RandomCrop``). The transformations are Keras 3's:
the same affine matrices (``_affine``), applied by the same op
(``ImageProjectiveTransformV3``) with the same ``fill_mode``, ``interpolation`` and
``fill_value``, so the same draw gives the same images (tested against the Keras layers'
``transform_images``).

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(shape=(4, 4, 1), name="img", value=np.ones((2, 4, 4, 1)))
>>> float(RandomRotation(x, factor=0.1).reuse_with(x, training=False)().numpy().sum())
32.0
>>> RandomCrop(x, height=2, width=2)().shape.as_list()
[2, 2, 2, 1]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner as name_owner
from tensorweave_layers.preprocessing.augment import Augment
from tensorweave_layers.preprocessing.image import aspect_box, check_images, resize

__all__ = ["RandomCrop", "RandomRotation", "RandomTranslation", "RandomZoom", "affine"]

FILL_MODES = ("reflect", "wrap", "constant", "nearest")
INTERPOLATIONS = ("bilinear", "nearest")
Factor = float | Sequence[float]


def affine(
    images: tf.Tensor, matrix: tf.Tensor, interpolation: str, fill_mode: str, fill_value: float
) -> tf.Tensor:
    """Keras's ``affine_transform``: each image through its ``[8]`` projective matrix
    (output pixel ``(x, y)`` reads input ``(a0 x + a1 y + a2, b0 x + b1 y + b2)``)."""
    out = tf.raw_ops.ImageProjectiveTransformV3(
        images=tf.cast(images, tf.float32),
        transforms=tf.cast(matrix, tf.float32),
        output_shape=tf.shape(images)[1:3],
        fill_value=tf.constant(fill_value, tf.float32),
        interpolation=interpolation.upper(),
        fill_mode=fill_mode.upper(),
    )
    return tf.cast(tf.ensure_shape(out, images.shape), images.dtype)


def rotation_matrix(angle: tf.Tensor, height: int, width: int) -> tf.Tensor:
    """Keras's ``_compute_affine_matrix`` for a rotation by ``angle`` degrees (one per
    image) about the image's centre."""
    theta = angle * (math.pi / 180.0)
    cx, cy = 0.5 * (width - 1), 0.5 * (height - 1)
    cos, sin = tf.cos(theta), tf.sin(theta)
    a0, a1 = cos, -sin
    b0, b1 = sin, cos
    a2 = cx - cx * a0 - cy * a1
    b2 = cy - cx * b0 - cy * b1
    zeros = tf.zeros_like(theta)
    return tf.stack([a0, a1, a2, b0, b1, b2, zeros, zeros], axis=1)


def zoom_matrix(zooms: tf.Tensor, height: int, width: int) -> tf.Tensor:
    """Keras's zoom matrix for ``zooms`` ``[batch, 2]`` (width, height factors)."""
    x_offset = ((width - 1.0) / 2.0) * (1.0 - zooms[:, 0:1])
    y_offset = ((height - 1.0) / 2.0) * (1.0 - zooms[:, 1:])
    zeros = tf.zeros_like(x_offset)
    return tf.concat(
        [zooms[:, 0:1], zeros, x_offset, zeros, zooms[:, 1:], y_offset, zeros, zeros], axis=1
    )


def translation_matrix(shifts: tf.Tensor) -> tf.Tensor:
    """Keras's translation matrix for ``shifts`` ``[batch, 2]`` (x, y in pixels)."""
    ones, zeros = tf.ones_like(shifts[:, 0:1]), tf.zeros_like(shifts[:, 0:1])
    return tf.concat(
        [ones, zeros, -shifts[:, 0:1], zeros, ones, -shifts[:, 1:], zeros, zeros], axis=1
    )


def _pair(factor: Factor, owner: str, name: str, low: float = -math.inf) -> tuple[float, float]:
    """Keras's factor: ``f`` is ``(-f, f)``, a pair ``(lower, upper)``."""
    if isinstance(factor, int | float):
        pair = (-abs(float(factor)), abs(float(factor)))
    elif len(factor) == 2:
        pair = (float(factor[0]), float(factor[1]))
    else:
        raise tw.ArgumentError(f"{owner}: {name} is a number or a pair, got {factor!r}.")
    if pair[0] > pair[1] or pair[0] < low:
        raise tw.ArgumentError(
            f"{owner}: {name} {factor!r} must give lower <= upper"
            + (f", lower >= {low}" if low > -math.inf else "")
            + "."
        )
    return pair


class _Affine(Augment):
    """An augmentation by an affine matrix per image (``matrix(x, rng)``)."""

    def __init__(
        self,
        x: tw.Layer,
        *,
        fill_mode: str,
        interpolation: str,
        fill_value: float,
        training: bool,
        name: str | None,
        share_state_with: tw.Layer | None,
    ) -> None:
        owner = name_owner(self.layer_type, name)
        self.size = check_images(x, owner)
        if fill_mode not in FILL_MODES:
            raise tw.ArgumentError(
                f"{owner}: fill_mode must be one of {FILL_MODES}, got {fill_mode!r}."
            )
        if interpolation not in INTERPOLATIONS:
            raise tw.ArgumentError(
                f"{owner}: interpolation must be one of {INTERPOLATIONS}, got {interpolation!r}."
            )
        self.fill_mode, self.interpolation = fill_mode, interpolation
        self.fill_value = float(fill_value)
        super().__init__(x, training=training, name=name, share_state_with=share_state_with)

    def augment(self, x: tf.Tensor, rng: tf.random.Generator) -> tf.Tensor:
        """The images, each through its drawn matrix."""
        return self.apply(x, self.matrix(x, rng))

    def apply(self, x: tf.Tensor, matrix: tf.Tensor) -> tf.Tensor:
        """The images through the given matrices (``[batch, 8]``)."""
        return affine(x, matrix, self.interpolation, self.fill_mode, self.fill_value)

    def matrix(self, x: tf.Tensor, rng: tf.random.Generator) -> tf.Tensor:
        raise NotImplementedError

    def _uniform(self, x: tf.Tensor, rng: tf.random.Generator, low: float, high: float) -> Any:
        return rng.uniform(tf.stack([tf.shape(x)[0], 1]), low, high, dtype=tf.float32)


class RandomRotation(_Affine):
    """Rotate each image by a random angle about its centre.

    Args:
        x: images ``[batch, height, width, channels]`` of known height and width.
        factor: a fraction of a full turn: ``f`` for angles in ``[-f, f] * 360`` degrees, or
            ``(lower, upper)``.
        fill_mode: ``"reflect"`` (Keras's default), ``"wrap"``, ``"constant"`` or
            ``"nearest"``: what fills the corners.
        interpolation: ``"bilinear"`` or ``"nearest"``.
        fill_value: the corners' value with ``fill_mode="constant"``.
        training: rotate (``True``) or pass the images through (``False``).
    """

    layer_type = "RandomRotation"
    options = ("factor", "fill_mode", "interpolation", "fill_value")

    def __init__(
        self,
        x: tw.Layer,
        *,
        factor: Factor,
        fill_mode: str = "reflect",
        interpolation: str = "bilinear",
        fill_value: float = 0.0,
        training: bool = True,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        self.factor = factor
        self.bounds = _pair(factor, name_owner("RandomRotation", name), "factor")
        super().__init__(
            x, fill_mode=fill_mode, interpolation=interpolation, fill_value=fill_value,
            training=training, name=name, share_state_with=share_state_with,
        )  # fmt: skip

    def matrix(self, x: tf.Tensor, rng: tf.random.Generator) -> tf.Tensor:
        """One angle per image, uniform in ``factor * 360`` degrees."""
        lo, hi = self.bounds
        angle = rng.uniform(tf.shape(x)[:1], lo * 360.0, hi * 360.0, dtype=tf.float32)
        return rotation_matrix(angle, *self.size)


class RandomZoom(_Affine):
    """Zoom each image in or out by a random factor about its centre.

    Args:
        x: images ``[batch, height, width, channels]`` of known height and width.
        height_factor: ``f`` for vertical zoom factors in ``[1 - f, 1 + f]``, or
            ``(lower, upper)`` for ``[1 + lower, 1 + upper]`` (positive: zoom out; Keras's).
        width_factor: the same horizontally; ``None`` keeps the aspect ratio (one factor).
        fill_mode, interpolation, fill_value: as ``RandomRotation``'s.
        training: zoom (``True``) or pass the images through (``False``).
    """

    layer_type = "RandomZoom"
    options = ("height_factor", "width_factor", "fill_mode", "interpolation", "fill_value")

    def __init__(
        self,
        x: tw.Layer,
        *,
        height_factor: Factor,
        width_factor: Factor | None = None,
        fill_mode: str = "reflect",
        interpolation: str = "bilinear",
        fill_value: float = 0.0,
        training: bool = True,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        owner = name_owner("RandomZoom", name)
        self.height_factor, self.width_factor = height_factor, width_factor
        self.height_bounds = _pair(height_factor, owner, "height_factor", -1.0)
        self.width_bounds = (
            None if width_factor is None else _pair(width_factor, owner, "width_factor", -1.0)
        )
        super().__init__(
            x, fill_mode=fill_mode, interpolation=interpolation, fill_value=fill_value,
            training=training, name=name, share_state_with=share_state_with,
        )  # fmt: skip

    def matrix(self, x: tf.Tensor, rng: tf.random.Generator) -> tf.Tensor:
        """One (height, width) zoom per image."""
        lo, hi = self.height_bounds
        height = self._uniform(x, rng, 1.0 + lo, 1.0 + hi)
        if self.width_bounds is None:
            width = height
        else:
            width = self._uniform(x, rng, 1.0 + self.width_bounds[0], 1.0 + self.width_bounds[1])
        return zoom_matrix(tf.concat([width, height], axis=1), *self.size)


class RandomTranslation(_Affine):
    """Shift each image by a random fraction of its height and width.

    Args:
        x: images ``[batch, height, width, channels]`` of known height and width.
        height_factor: ``f`` for vertical shifts in ``[-f, f] * height``, or
            ``(lower, upper)``.
        width_factor: the same for horizontal shifts (of the width).
        fill_mode, interpolation, fill_value: as ``RandomRotation``'s.
        training: shift (``True``) or pass the images through (``False``).
    """

    layer_type = "RandomTranslation"
    options = ("height_factor", "width_factor", "fill_mode", "interpolation", "fill_value")

    def __init__(
        self,
        x: tw.Layer,
        *,
        height_factor: Factor,
        width_factor: Factor,
        fill_mode: str = "reflect",
        interpolation: str = "bilinear",
        fill_value: float = 0.0,
        training: bool = True,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        owner = name_owner("RandomTranslation", name)
        self.height_factor, self.width_factor = height_factor, width_factor
        self.height_bounds = _pair(height_factor, owner, "height_factor")
        self.width_bounds = _pair(width_factor, owner, "width_factor")
        super().__init__(
            x, fill_mode=fill_mode, interpolation=interpolation, fill_value=fill_value,
            training=training, name=name, share_state_with=share_state_with,
        )  # fmt: skip

    def matrix(self, x: tf.Tensor, rng: tf.random.Generator) -> tf.Tensor:
        """One (x, y) shift per image, in pixels."""
        height, width = self.size
        dy = self._uniform(x, rng, *self.height_bounds) * height
        dx = self._uniform(x, rng, *self.width_bounds) * width
        return translation_matrix(tf.concat([dx, dy], axis=1))


class RandomCrop(Augment):
    """Crop a random ``height x width`` box while training (one box per batch, as Keras);
    at inference the centred box of that aspect ratio, resized to ``height x width``.

    Keras 3's layer returns the images unchanged at inference, a different shape from
    training's, which a model with a fixed graph cannot take; this one crops the centre
    (what Keras's layer does in training for images smaller than the box, and Keras 2's at
    inference), so training and inference give ``[batch, height, width, channels]``.

    Args:
        x: images ``[batch, height, width, channels]`` of known height and width.
        height, width: the crop's size.
        training: crop at random (``True``) or the centre (``False``).
    """

    layer_type = "RandomCrop"
    options = ("height", "width")
    compute_precision = "float32"

    def __init__(
        self,
        x: tw.Layer,
        *,
        height: int,
        width: int,
        training: bool = True,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        owner = name_owner("RandomCrop", name)
        self.size = check_images(x, owner)
        self.height = tw.positive_int(height, "height", owner)
        self.width = tw.positive_int(width, "width", owner)
        super().__init__(
            x, training=training, name=name, share_state_with=share_state_with,
            shape=(x.shape[0], self.height, self.width, x.shape[3]),
        )  # fmt: skip

    def augment(self, x: tf.Tensor, rng: tf.random.Generator) -> tf.Tensor:
        """A random box (one offset per batch), or the centre when the images are not
        larger than the box along both axes."""
        in_h, in_w = self.size
        if not (in_h > self.height and in_w > self.width):
            return self.infer(x)
        top = tf.cast(rng.uniform((), 0, float(in_h - self.height + 1)), tf.int32)
        left = tf.cast(rng.uniform((), 0, float(in_w - self.width + 1)), tf.int32)
        return self.crop_at(x, top, left)

    def crop_at(self, x: tf.Tensor, top: Any, left: Any) -> tf.Tensor:
        """The ``height x width`` box at ``(top, left)``."""
        out = x[:, top : top + self.height, left : left + self.width, :]
        return tf.ensure_shape(out, [None, self.height, self.width, x.shape[3]])

    def infer(self, x: tf.Tensor) -> tf.Tensor:
        """The centred box of the crop's aspect ratio, resized to ``height x width`` (Keras's
        ``Resizing(height, width, crop_to_aspect_ratio=True)``)."""
        top, left, h, w = aspect_box(*self.size, (self.height, self.width))
        box = x[:, top : top + h, left : left + w, :]
        if (h, w) == (self.height, self.width):
            return box
        return resize(box, (self.height, self.width), "bilinear", False)
