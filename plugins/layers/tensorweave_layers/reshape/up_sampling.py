"""``UpSampling``: enlarge each spatial axis by an integer factor, which ``UpSampling1D``/
``UpSampling2D``/``UpSampling3D`` set to a rank.

``interpolation="nearest"`` repeats each step ``size`` times (Keras's ``UpSampling1D/2D/3D``);
``"bilinear"`` interpolates linearly along each axis in turn (bilinear for images,
trilinear for volumes), with the half-pixel centres of ``tf.image.resize``, so on images it
equals Keras's ``UpSampling2D(interpolation="bilinear")``. Spatial sizes may be dynamic.

>>> import numpy as np, tensorweave as tw
>>> class UpSampling1D(UpSampling):
...     spatial_rank = 1
>>> seq = tw.Input(batch_shape=(None, None, 1), value=np.array([[[0.0], [4.0]]]))
>>> UpSampling1D(seq, 2)().numpy()[0, :, 0].tolist()
[0.0, 0.0, 4.0, 4.0]
>>> UpSampling1D(seq, 2, interpolation="bilinear")().numpy()[0, :, 0].tolist()
[0.0, 1.0, 3.0, 4.0]

``UpSampling1D``: enlarge sequences ``[batch, time, channels]`` by an integer factor per axis,
repeating or interpolating (see ``UpSampling``).

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(batch_shape=(None, None, 2), name="x")
>>> up = UpSampling1D(x, 2)
>>> up.shape, up.compute(tf.ones((1, 3, 2))).shape.as_list()
((None, None, 2), [1, 6, 2])

``UpSampling2D``: enlarge images ``[batch, height, width, channels]`` by an integer
factor per axis, repeating or interpolating (see ``UpSampling``).

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(shape=(4, 5, 2), name="x")
>>> up = UpSampling2D(x, 2, interpolation="bilinear")
>>> up.shape, up.compute(tf.ones((1, 4, 5, 2))).shape.as_list()
((None, 8, 10, 2), [1, 8, 10, 2])

``UpSampling3D``: enlarge volumes ``[batch, depth, height, width, channels]`` by an
integer factor per axis, repeating or interpolating (see ``UpSampling``).

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(shape=(2, 3, 3, 1), name="x")
>>> up = UpSampling3D(x, 2)
>>> up.shape, up.compute(tf.ones((1, 2, 3, 3, 1))).shape.as_list()
((None, 4, 6, 6, 1), [1, 4, 6, 6, 1])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner as name_owner
from tensorweave_layers._spatial import SpatialLayer, as_tuple

__all__ = ["UpSampling", "linear_upsample", "UpSampling1D", "UpSampling2D", "UpSampling3D"]


INTERPOLATIONS = ("nearest", "bilinear")


def linear_upsample(x: Any, axis: int, factor: int) -> tf.Tensor:
    """``x`` with ``axis`` ``factor`` times longer, interpolated linearly between the
    samples (half-pixel centres; the edges repeat the end samples)."""
    x = tf.convert_to_tensor(x)
    length = tf.shape(x)[axis]
    out = tf.range(length * factor)
    source = (tf.cast(out, tf.float32) + 0.5) / factor - 0.5
    below = tf.floor(source)
    weight = tf.cast(source - below, x.dtype)
    below = tf.cast(below, tf.int32)
    low = tf.gather(x, tf.clip_by_value(below, 0, length - 1), axis=axis)
    high = tf.gather(x, tf.clip_by_value(below + 1, 0, length - 1), axis=axis)
    shape = [1] * x.shape.rank
    shape[axis] = -1
    weight = tf.reshape(weight, shape)
    return low + (high - low) * weight


class UpSampling(SpatialLayer):
    """Upsample ``[batch, *spatial, channels]`` by ``size`` per spatial axis.

    Args:
        x: the input (dense, known channels; spatial sizes may be dynamic).
        size: the factor, an int or one per spatial axis.
        interpolation: ``"nearest"`` (repeat) or ``"bilinear"`` (linear along each axis).
    """

    def __init__(
        self,
        x: tw.Layer,
        size: int | Sequence[int] = 2,
        *,
        interpolation: str = "nearest",
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        owner = name_owner(type(self).__name__, name)
        self.check_input(x, owner)
        self.size = as_tuple(size, self.spatial_rank, "size", owner)
        if interpolation not in INTERPOLATIONS:
            raise tw.ArgumentError(
                f"{owner}: interpolation must be one of {INTERPOLATIONS}, got {interpolation!r}."
                " Fix: for other methods (bicubic, area…) use Resizing."
            )
        if interpolation == "bilinear" and not x.dtype.is_floating:
            raise tw.ArgumentError(
                f"{owner}: bilinear interpolation needs a float input, got {x.dtype.name}."
            )
        self.interpolation = interpolation
        spatial = [None if d is None else d * s for d, s in zip(x.shape[1:-1], self.size)]
        super().__init__(x, spatial, name=name, share_state_with=share_state_with)

    def compute(self, x: Any) -> tf.Tensor:
        """Repeat or interpolate along each spatial axis in turn."""
        x = tf.convert_to_tensor(x)
        for axis, factor in enumerate(self.size, start=1):
            if factor == 1:
                continue
            if self.interpolation == "nearest":
                x = tf.repeat(x, factor, axis=axis)
            else:
                x = linear_upsample(x, axis, factor)
        return x


class UpSampling1D(UpSampling):
    """Upsampling over 1 spatial axis; see ``UpSampling`` for the options (``size``,
    ``interpolation``)."""

    spatial_rank = 1


class UpSampling2D(UpSampling):
    """Upsampling over 2 spatial axes; see ``UpSampling`` for the options (``size``,
    ``interpolation``)."""

    spatial_rank = 2


class UpSampling3D(UpSampling):
    """Upsampling over 3 spatial axes; see ``UpSampling`` for the options (``size``,
    ``interpolation``)."""

    spatial_rank = 3
