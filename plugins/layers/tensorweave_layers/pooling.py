"""Max and average pooling over sequences (1-d) and images (2-d), and global pooling.

Window pooling keeps the channel axis and shrinks the spatial axes like a convolution
(``stride`` defaults to ``pool_size``); global pooling reduces every spatial axis, giving
``[batch, channels]``. None of them has variables.

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(shape=(6, 6, 2), name="img")
>>> MaxPool2D(x, pool_size=2).shape, AvgPool2D(x, 3, stride=1, padding="same").shape
((None, 3, 3, 2), (None, 6, 6, 2))
>>> GlobalAvgPool(x).shape
(None, 2)
>>> seq = tw.Input(batch_shape=(None, None, 4), value=np.arange(8.0).reshape(1, 2, 4))
>>> GlobalMaxPool(seq)().numpy().tolist()
[[4.0, 5.0, 6.0, 7.0]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import tensorflow as tf

import tensorweave as tw

from ._shapes import owner as name_owner
from ._spatial import as_tuple, check_padding, check_rank, describe, output_length

__all__ = [
    "Pool",
    "MaxPool1D",
    "MaxPool2D",
    "AvgPool1D",
    "AvgPool2D",
    "GlobalMaxPool",
    "GlobalAvgPool",
]

_LAYOUTS = {1: "[batch, time, channels]", 2: "[batch, height, width, channels]"}


class Pool(tw.Layer):
    """Window pooling (``pooling`` ``"MAX"`` or ``"AVG"``) over ``spatial_rank`` axes.

    Args:
        x: the input, ``[batch, *spatial, channels]``.
        pool_size: the window, an int or one per spatial axis.
        stride: the step, defaults to ``pool_size`` (non-overlapping windows).
        padding: ``"valid"`` (default) or ``"same"``; averages ignore the padding.
    """

    spatial_rank: ClassVar[int] = 1
    pooling: ClassVar[str] = "MAX"

    def __init__(
        self,
        x: tw.Layer,
        pool_size: int | Sequence[int] = 2,
        *,
        stride: int | Sequence[int] | None = None,
        padding: str = "valid",
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        rank = self.spatial_rank
        owner = name_owner(type(self).__name__, name)
        other = "MaxPool2D/AvgPool2D" if rank == 1 else "MaxPool1D/AvgPool1D"
        check_rank(
            x, rank + 2, _LAYOUTS[rank], owner, f"reshape to {_LAYOUTS[rank]}, or use {other}."
        )
        self.pool_size = as_tuple(pool_size, rank, "pool_size", owner)
        self.strides = as_tuple(
            stride if stride is not None else self.pool_size, rank, "stride", owner
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
        return op(x, ksize=self.pool_size, strides=self.strides, padding=self.padding)


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

    def __init__(
        self, x: tw.Layer, *, name: str | None = None, share_state_with: tw.Layer | None = None
    ) -> None:
        owner = name_owner(type(self).__name__, name)
        if x.sparse or len(x.shape) < 3 or x.shape[-1] is None:
            raise tw.ShapeError(
                f"{owner} expects a dense input [batch, *spatial, channels] of rank >= 3 with a "
                f"known channel dimension, got {describe(x)}"
                f". Fix: it reduces the spatial axes of "
                "sequences or images; a [batch, features] input has none to reduce."
            )
        self._axes = tuple(range(1, len(x.shape) - 1))
        super().__init__(
            x,
            shape=(x.shape[0], x.shape[-1]),
            dtype=x.dtype,
            name=name,
            share_state_with=share_state_with,
        )

    def compute(self, x: Any) -> tf.Tensor:
        """Reduce every spatial axis."""
        return type(self).reduce(x, axis=self._axes)


class GlobalMaxPool(_GlobalPool):
    """Max over every spatial axis: ``[batch, *spatial, channels]`` -> ``[batch, channels]``."""

    reduce = staticmethod(tf.reduce_max)


class GlobalAvgPool(_GlobalPool):
    """Mean over every spatial axis: ``[batch, *spatial, channels]`` -> ``[batch, channels]``."""

    reduce = staticmethod(tf.reduce_mean)
