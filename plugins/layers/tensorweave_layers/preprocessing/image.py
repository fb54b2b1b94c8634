"""``Resizing`` and ``CenterCrop``: images to a fixed size, as ``keras.layers.Resizing`` and
``keras.layers.CenterCrop`` (channels last, the same in training and at inference).

``Resizing`` resizes with ``tf.image.resize`` (Keras's ``interpolation`` names, and
``tf.image.resize``'s ``gaussian`` and ``mitchellcubic``), after cropping the largest centred
box of the target's aspect ratio with ``crop_to_aspect_ratio=True`` (Keras's box: the same
integer arithmetic), or padding to it with ``pad_to_aspect_ratio=True`` (``fill_value``).
Its input may have any height and width (``Input(batch_shape=(None, None, None, 3))``): the
box is then computed from the images' size at run time. ``CenterCrop`` takes the centred
``height x width`` box; an image smaller than that along an axis is cropped to the target's
aspect ratio and resized instead (Keras's ``smart_resize``).

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(shape=(4, 6, 1), name="img", value=np.arange(24.0).reshape(1, 4, 6, 1))
>>> CenterCrop(x, height=2, width=2)().numpy()[0, :, :, 0].tolist()
[[8.0, 9.0], [14.0, 15.0]]
>>> Resizing(x, height=2, width=3)().shape.as_list()
[1, 2, 3, 1]
>>> import tensorflow as tf
>>> any_size = tw.Input(batch_shape=(None, None, None, 3), name="photo")
>>> small = Resizing(any_size, height=4, width=6, crop_to_aspect_ratio=True)
>>> small.shape, small.compute(tf.ones((2, 9, 7, 3))).shape.as_list()
((None, 4, 6, 3), [2, 4, 6, 3])
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner as name_owner
from tensorweave_layers._spatial import describe

__all__ = ["CenterCrop", "Resizing", "aspect_box", "check_images", "check_rank4", "resize"]

INTERPOLATIONS = (
    "bilinear",
    "nearest",
    "bicubic",
    "area",
    "lanczos3",
    "lanczos5",
    "gaussian",
    "mitchellcubic",
)


def check_rank4(x: tw.Layer, owner: str) -> None:
    """A named error unless ``x`` is a dense batch of images ``[batch, h, w, channels]``."""
    if x.sparse or len(x.shape) != 4 or not (x.dtype.is_floating or x.dtype.is_integer):
        raise tw.ShapeError(
            f"{owner} takes a batch of images [batch, height, width, channels] of numbers, "
            f"got {describe(x)} {x.dtype.name}. Fix: reshape the input to rank 4 (add a "
            "channel axis to gray images)."
        )


def check_images(x: tw.Layer, owner: str) -> tuple[int, int]:
    """The known ``(height, width)`` of a batch of images ``x``, else a named error."""
    check_rank4(x, owner)
    height, width = x.shape[1], x.shape[2]
    if height is None or width is None:
        raise tw.ShapeError(
            f"{owner}: the images' height and width must be known, got {describe(x)}. Fix: "
            "give the input its image size (e.g. input = [32, 32, 3])."
        )
    return int(height), int(width)


def aspect_box(height: int, width: int, target: tuple[int, int]) -> tuple[int, int, int, int]:
    """Keras's centred crop box ``(top, left, crop_height, crop_width)`` of the target's
    aspect ratio in a ``height x width`` image.

    >>> aspect_box(6, 8, (4, 4))
    (0, 1, 6, 6)
    """
    crop_h = max(min(height, int(float(width * target[0]) / target[1])), 1)
    crop_w = max(min(width, int(float(height * target[1]) / target[0])), 1)
    return int(float(height - crop_h) / 2), int(float(width - crop_w) / 2), crop_h, crop_w


def _floor_div(a: Any, b: float) -> tf.Tensor:
    """``int(float(a) / b)`` of a non-negative int32 tensor ``a`` (``aspect_box``'s
    arithmetic on sizes known only at run time)."""
    return tf.cast(tf.cast(a, tf.float64) / b, tf.int32)


def _crop_to_aspect(x: tf.Tensor, target: tuple[int, int]) -> tf.Tensor:
    """The centred box of the target's aspect ratio, for images of any size."""
    shape = tf.shape(x)
    height, width = shape[1], shape[2]
    crop_h = tf.maximum(tf.minimum(height, _floor_div(width * target[0], target[1])), 1)
    crop_w = tf.maximum(tf.minimum(width, _floor_div(height * target[1], target[0])), 1)
    top, left = _floor_div(height - crop_h, 2), _floor_div(width - crop_w, 2)
    return x[:, top : top + crop_h, left : left + crop_w, :]


def _pad_to_aspect(x: tf.Tensor, target: tuple[int, int], fill_value: float) -> tf.Tensor:
    """Padded (centred) to the target's aspect ratio, for images of any size."""
    shape = tf.shape(x)
    height, width = shape[1], shape[2]
    pad_h = tf.maximum(height, _floor_div(width * target[0], target[1]))
    pad_w = tf.maximum(width, _floor_div(height * target[1], target[0]))
    top, left = _floor_div(pad_h - height, 2), _floor_div(pad_w - width, 2)
    paddings = [[0, 0], [top, top], [left, left], [0, 0]]
    return tf.pad(x, paddings, constant_values=tf.cast(fill_value, x.dtype))


def resize(images: tf.Tensor, size: tuple[int, int], interpolation: str, antialias: bool) -> Any:
    """``tf.image.resize`` as Keras calls it (its dtype kept for floats)."""
    out = tf.image.resize(images, size, method=interpolation, antialias=antialias)
    return tf.cast(out, images.dtype) if images.dtype.is_floating else out


def _size(value: Any, name: str, owner: str) -> int:
    return tw.positive_int(value, name, owner)


class Resizing(tw.Layer):
    """Resize images to ``height x width``.

    Args:
        x: images ``[batch, height, width, channels]``, of any height and width.
        height, width: the output size.
        interpolation: ``"bilinear"`` (Keras's default), ``"nearest"``, ``"bicubic"``,
            ``"area"``, ``"lanczos3"``, ``"lanczos5"``, ``"gaussian"`` or
            ``"mitchellcubic"`` (``tf.image.resize``'s methods).
        crop_to_aspect_ratio: crop the centred box of the output's aspect ratio first.
        pad_to_aspect_ratio: pad to the output's aspect ratio first (with ``fill_value``).
        fill_value: the padding's value.
        antialias: an anti-aliasing filter when downsampling.
    """

    compute_precision = "float32"

    def __init__(
        self,
        x: tw.Layer,
        *,
        height: int,
        width: int,
        interpolation: str = "bilinear",
        crop_to_aspect_ratio: bool = False,
        pad_to_aspect_ratio: bool = False,
        fill_value: float = 0.0,
        antialias: bool = False,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        owner = name_owner("Resizing", name)
        check_rank4(x, owner)
        self.height, self.width = _size(height, "height", owner), _size(width, "width", owner)
        if interpolation not in INTERPOLATIONS:
            raise tw.ArgumentError(
                f"{owner}: interpolation must be one of {INTERPOLATIONS}, got {interpolation!r}."
            )
        if crop_to_aspect_ratio and pad_to_aspect_ratio:
            raise tw.ArgumentError(
                f"{owner}: crop_to_aspect_ratio and pad_to_aspect_ratio exclude each other. "
                "Fix: set one of them."
            )
        self.interpolation = interpolation
        self.crop_to_aspect_ratio = bool(crop_to_aspect_ratio)
        self.pad_to_aspect_ratio = bool(pad_to_aspect_ratio)
        self.fill_value = float(fill_value)
        self.antialias = bool(antialias)
        out = x.dtype if x.dtype.is_floating else tf.float32
        shape = (x.shape[0], self.height, self.width, x.shape[3])
        super().__init__(x, shape=shape, dtype=out, name=name, share_state_with=share_state_with)

    def compute(self, x: Any) -> tf.Tensor:
        """The resized images."""
        x = tf.cast(x, self.compute_dtype)
        target = (self.height, self.width)
        known = x.shape[1] is not None and x.shape[2] is not None
        if self.crop_to_aspect_ratio and known:
            top, left, h, w = aspect_box(int(x.shape[1]), int(x.shape[2]), target)
            x = x[:, top : top + h, left : left + w, :]
        elif self.crop_to_aspect_ratio:
            x = _crop_to_aspect(x, target)
        elif self.pad_to_aspect_ratio:
            x = _pad_to_aspect(x, target, self.fill_value)
        return resize(x, target, self.interpolation, self.antialias)


class CenterCrop(tw.Layer):
    """Crop the centred ``height x width`` box of each image (Keras's ``CenterCrop``; a
    smaller image is cropped to the aspect ratio and resized).

    Args:
        x: images ``[batch, height, width, channels]`` of known height and width.
        height, width: the output size.
    """

    compute_precision = "float32"

    def __init__(
        self,
        x: tw.Layer,
        *,
        height: int,
        width: int,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        owner = name_owner("CenterCrop", name)
        self.in_size = check_images(x, owner)
        self.height, self.width = _size(height, "height", owner), _size(width, "width", owner)
        out = x.dtype if x.dtype.is_floating else tf.float32
        shape = (x.shape[0], self.height, self.width, x.shape[3])
        super().__init__(x, shape=shape, dtype=out, name=name, share_state_with=share_state_with)

    def compute(self, x: Any) -> tf.Tensor:
        """The centred crops."""
        x = tf.cast(x, self.compute_dtype)
        height, width = self.in_size
        if height >= self.height and width >= self.width:
            top, left = (height - self.height) // 2, (width - self.width) // 2
            return x[:, top : top + self.height, left : left + self.width, :]
        top, left, h, w = aspect_box(height, width, (self.height, self.width))
        return resize(x[:, top : top + h, left : left + w, :], (self.height, self.width),
                      "bilinear", False)  # fmt: skip
