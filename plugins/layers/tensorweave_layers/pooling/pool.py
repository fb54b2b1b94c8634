"""Max and average pooling over sequences (1-d) and images (2-d), and global pooling.

Window pooling keeps the channel axis and shrinks the spatial axes like a convolution
(``strides`` defaults to ``pool_size``); global pooling reduces every spatial axis, giving
``[batch, channels]``, over the real steps only when given a ``mask=`` (``[batch,
*spatial]``, true at real steps; default: the input's ``padding_mask``, e.g. from
``Lookup(..., mask_zero=True)``). None of them has variables.

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(shape=(6, 6, 2), name="img")
>>> MaxPool2D(x, pool_size=2).shape, AvgPool2D(x, 3, strides=1, padding="same").shape
((None, 3, 3, 2), (None, 6, 6, 2))
>>> GlobalAvgPool(x).shape
(None, 2)
>>> seq = tw.Input(batch_shape=(None, None, 4), value=np.arange(8.0).reshape(1, 2, 4))
>>> GlobalMaxPool(seq)().numpy().tolist()
[[4.0, 5.0, 6.0, 7.0]]
>>> real = tw.Input(batch_shape=(None, None), dtype="bool", value=[[True, False]])
>>> GlobalMaxPool(seq, mask=real)().numpy().tolist()
[[0.0, 1.0, 2.0, 3.0]]

``MaxPool3D``: max over windows of volumes ``[batch, depth, height, width, channels]``.

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(shape=(4, 6, 6, 2), name="clip")
>>> MaxPool3D(x, pool_size=2).shape, MaxPool3D(x, 3, strides=1, padding="same").shape
((None, 2, 3, 3, 2), (None, 4, 6, 6, 2))
>>> MaxPool3D(x, (1, 2, 2)).compute(tf.ones((1, 4, 6, 6, 2))).shape.as_list()
[1, 4, 3, 3, 2]

``AvgPool3D``: average over windows of volumes ``[batch, depth, height, width, channels]``.

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(shape=(4, 6, 6, 2), name="clip")
>>> AvgPool3D(x, pool_size=2).shape, AvgPool3D(x, 3, strides=1, padding="same").shape
((None, 2, 3, 3, 2), (None, 4, 6, 6, 2))
>>> AvgPool3D(x, (1, 2, 2)).compute(tf.ones((1, 4, 6, 6, 2))).shape.as_list()
[1, 4, 3, 3, 2]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner as name_owner
from tensorweave_layers._spatial import (
    CHANNELS_LAST,
    LAYOUTS,
    as_tuple,
    check_padding,
    check_rank,
    describe,
    output_length,
    rank_fix,
)

__all__ = [
    "Pool",
    "MaxPool1D",
    "MaxPool2D",
    "AvgPool1D",
    "AvgPool2D",
    "GlobalMaxPool",
    "GlobalAvgPool",
    "MaxPool3D",
    "AvgPool3D",
]


class Pool(tw.Layer):
    """Window pooling (``pooling`` ``"MAX"`` or ``"AVG"``) over ``spatial_rank`` axes.

    Args:
        x: the input, ``[batch, *spatial, channels]``.
        pool_size: the window, an int or one per spatial axis.
        strides: the step, defaults to ``pool_size`` (non-overlapping windows).
        padding: ``"valid"`` (default) or ``"same"``; averages ignore the padding.
    """

    spatial_rank: ClassVar[int] = 1
    pooling: ClassVar[str] = "MAX"

    def __init__(
        self,
        x: tw.Layer,
        pool_size: int | Sequence[int] = 2,
        *,
        strides: int | Sequence[int] | None = None,
        padding: str = "valid",
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        rank = self.spatial_rank
        owner = name_owner(type(self).__name__, name)
        check_rank(x, rank + 2, LAYOUTS[rank], owner, rank_fix(type(self).__name__, rank))
        self.pool_size = as_tuple(pool_size, rank, "pool_size", owner)
        self.strides = as_tuple(
            strides if strides is not None else self.pool_size, rank, "strides", owner
        )
        self.padding = check_padding(padding, owner)
        spatial = []
        for axis, length in enumerate(x.shape[1:-1]):
            out = output_length(
                length,
                kernel=self.pool_size[axis],
                stride=self.strides[axis],
                dilation=1,
                padding=self.padding,
            )
            if out is not None and out < 1:
                raise tw.ShapeError(
                    f"{owner}: input {describe(x)} is smaller than the window "
                    f"{self.pool_size} on spatial axis {axis}. Fix: padding='same' or a "
                    "smaller pool_size."
                )
            spatial.append(out)
        super().__init__(
            x,
            shape=(x.shape[0], *spatial, x.shape[-1]),
            dtype=x.dtype,
            name=name,
            share_state_with=share_state_with,
        )

    def compute(self, x: Any) -> tf.Tensor:
        """``tf.nn.max_pool``/``tf.nn.avg_pool`` with this layer's window."""
        op = tf.nn.max_pool if self.pooling == "MAX" else tf.nn.avg_pool
        return op(
            x,
            ksize=self.pool_size,
            strides=self.strides,
            padding=self.padding,
            data_format=CHANNELS_LAST[self.spatial_rank],
        )


class MaxPool1D(Pool):
    """Max over windows of ``[batch, time, channels]``; see ``Pool``."""

    spatial_rank = 1
    pooling = "MAX"


class AvgPool1D(Pool):
    """Average over windows of ``[batch, time, channels]``; see ``Pool``."""

    spatial_rank = 1
    pooling = "AVG"


class MaxPool2D(Pool):
    """Max over windows of ``[batch, height, width, channels]``; see ``Pool``."""

    spatial_rank = 2
    pooling = "MAX"


class AvgPool2D(Pool):
    """Average over windows of ``[batch, height, width, channels]``; see ``Pool``."""

    spatial_rank = 2
    pooling = "AVG"


class _GlobalPool(tw.Layer):
    reduce: ClassVar[Any] = staticmethod(tf.reduce_max)
    #: the value masked steps take before reducing (the reduction's identity)
    fill: ClassVar[float] = 0.0

    def __init__(
        self,
        x: tw.Layer,
        *,
        mask: tw.Layer | None = None,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        owner = name_owner(type(self).__name__, name)
        if x.sparse or len(x.shape) < 3 or x.shape[-1] is None:
            raise tw.ShapeError(
                f"{owner} expects a dense input [batch, *spatial, channels] of rank >= 3 with a "
                f"known channel dimension, got {describe(x)}"
                f". Fix: it reduces the spatial axes of "
                "sequences or images; a [batch, features] input has none to reduce."
            )
        mask = mask if mask is not None else x.padding_mask
        if mask is not None and (
            mask.sparse
            or len(mask.shape) != len(x.shape) - 1
            or any(
                a is not None and b is not None and a != b
                for a, b in zip(mask.shape, x.shape[:-1], strict=True)
            )
        ):
            raise tw.ShapeError(
                f"{owner}: mask {describe(mask)} must be dense and shaped like the input "
                f"{describe(x)} without its channels. Fix: one flag per step, e.g. "
                "tw.ops.not_equal(ids, 0) for [batch, time] ids."
            )
        self._axes = tuple(range(1, len(x.shape) - 1))
        inputs = (x,) if mask is None else (x, mask)
        super().__init__(
            *inputs,
            shape=(x.shape[0], x.shape[-1]),
            dtype=x.dtype,
            name=name,
            share_state_with=share_state_with,
        )

    def compute(self, x: Any, mask: Any = None) -> tf.Tensor:
        """Reduce every spatial axis (over the steps ``mask`` marks real, if given; a row
        without any gives zeros)."""
        if mask is None:
            return type(self).reduce(x, axis=self._axes)
        real = tf.cast(mask, tf.bool)[..., None]
        out = type(self).reduce(tf.where(real, x, tf.constant(self.fill, x.dtype)), self._axes)
        if self.fill != 0.0:  # a row with no real step: zeros, not the fill value
            out = tf.where(tf.reduce_any(real, axis=self._axes), out, tf.zeros_like(out))
        return out

    def reuse_with(  # type: ignore[override]  # the input, then its mask if it had one
        self, x: tw.Layer, *mask: tw.Layer, name: str | None = None
    ) -> _GlobalPool:
        """The same pooling on ``x`` (and ``mask``; default: ``x``'s ``padding_mask``)."""
        return type(self)(x, mask=mask[0] if mask else None, name=name)


class GlobalMaxPool(_GlobalPool):
    """Max over every spatial axis: ``[batch, *spatial, channels]`` -> ``[batch, channels]``."""

    reduce = staticmethod(tf.reduce_max)
    fill = float("-inf")


class GlobalAvgPool(_GlobalPool):
    """Mean over every spatial axis: ``[batch, *spatial, channels]`` -> ``[batch, channels]``."""

    reduce = staticmethod(tf.reduce_mean)

    def compute(self, x: Any, mask: Any = None) -> tf.Tensor:
        """The mean over every spatial axis, or over the real steps ``mask`` marks (as
        Keras's ``GlobalAveragePooling1D``: a row without any gives zeros)."""
        if mask is None:
            return tf.reduce_mean(x, axis=self._axes)
        real = tf.cast(mask, tf.bool)[..., None]
        total = tf.reduce_sum(tf.where(real, x, tf.zeros_like(x)), axis=self._axes)
        count = tf.reduce_sum(tf.cast(real, x.dtype), axis=self._axes)
        return tf.math.divide_no_nan(total, count)


class MaxPool3D(Pool):
    """Max over windows of ``[batch, depth, height, width, channels]``; see ``Pool`` for
    the options (``pool_size``, ``strides``, ``padding``)."""

    spatial_rank = 3
    pooling = "MAX"


class AvgPool3D(Pool):
    """Average over windows of ``[batch, depth, height, width, channels]``; see ``Pool`` for
    the options (``pool_size``, ``strides``, ``padding``)."""

    spatial_rank = 3
    pooling = "AVG"
