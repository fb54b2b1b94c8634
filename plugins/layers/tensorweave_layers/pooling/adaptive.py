"""``AdaptivePool``: pooling to a fixed output size whatever the input size (PyTorch's and
Keras's adaptive pooling), which ``AdaptiveAvgPool2D``/``AdaptiveMaxPool2D`` set to a rank
and a reduction. Output cell ``i`` of an axis of length ``n`` pools input steps
``floor(i * n / m)`` to ``ceil((i + 1) * n / m)`` (``m`` the output size), so windows
overlap when ``m`` does not divide ``n``. Input sizes may be dynamic: the windows are
computed from the input's shape when it runs.

>>> import numpy as np, tensorweave as tw
>>> class AdaptiveMaxPool1D(AdaptivePool):
...     spatial_rank, pooling = 1, "MAX"
>>> seq = tw.Input(batch_shape=(None, None, 1), value=np.arange(5.0).reshape(1, 5, 1))
>>> AdaptiveMaxPool1D(seq, 2)().numpy()[..., 0].tolist()   # windows [0, 3) and [2, 5)
[[2.0, 4.0]]

``AdaptiveAvgPool2D``: average pooling of images to a fixed ``output_size``, whatever their
size (windows as PyTorch's and Keras's adaptive pooling; see ``AdaptivePool``).

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(batch_shape=(None, None, None, 3), name="img")   # any height and width
>>> pool = AdaptiveAvgPool2D(x, output_size=(2, 3))
>>> pool.shape
(None, 2, 3, 3)
>>> pool.compute(tf.ones((2, 7, 9, 3))).shape.as_list(), pool.compute(tf.ones((1, 4, 4, 3))).shape.as_list()
([2, 2, 3, 3], [1, 2, 3, 3])

``AdaptiveMaxPool2D``: max pooling of images to a fixed ``output_size``, whatever their
size (windows as PyTorch's and Keras's adaptive pooling; see ``AdaptivePool``).

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(batch_shape=(None, None, None, 3), name="img")   # any height and width
>>> pool = AdaptiveMaxPool2D(x, output_size=(2, 3))
>>> pool.shape
(None, 2, 3, 3)
>>> pool.compute(tf.ones((2, 7, 9, 3))).shape.as_list(), pool.compute(tf.ones((1, 4, 4, 3))).shape.as_list()
([2, 2, 3, 3], [1, 2, 3, 3])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner as name_owner
from tensorweave_layers._spatial import SpatialLayer, as_tuple

__all__ = ["AdaptivePool", "window_mask", "AdaptiveAvgPool2D", "AdaptiveMaxPool2D"]


def window_mask(length: Any, size: int) -> tf.Tensor:
    """``[size, length]`` booleans: which input steps each of ``size`` output cells pools.

    >>> window_mask(5, 2).numpy().astype(int).tolist()
    [[1, 1, 1, 0, 0], [0, 0, 1, 1, 1]]
    """
    cells = tf.range(size)[:, None]
    starts = cells * length // size
    ends = -((-(cells + 1) * length) // size)  # ceil
    steps = tf.range(length)[None, :]
    return (steps >= starts) & (steps < ends)


class AdaptivePool(SpatialLayer):
    """Max (``pooling = "MAX"``) or average pooling of ``[batch, *spatial, channels]`` to
    ``[batch, *output_size, channels]``.

    Args:
        x: the input (dense, known channels; spatial sizes may be dynamic).
        output_size: the output size, an int or one per spatial axis.
    """

    pooling: ClassVar[str] = "AVG"

    def __init__(
        self,
        x: tw.Layer,
        output_size: int | Sequence[int],
        *,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        owner = name_owner(type(self).__name__, name)
        self.check_input(x, owner)
        if self.pooling == "AVG" and not x.dtype.is_floating:
            raise tw.ArgumentError(
                f"{owner}: averages need a floating-point input, got {x.dtype.name}. Fix: "
                "cast it first (tw.ops.cast(x, tf.float32))."
            )
        self.output_size = as_tuple(output_size, self.spatial_rank, "output_size", owner)
        super().__init__(x, self.output_size, name=name, share_state_with=share_state_with)

    def compute(self, x: Any) -> tf.Tensor:
        """Pool each spatial axis in turn: mask the windows, then reduce."""
        x = tf.convert_to_tensor(x)
        for axis, size in enumerate(self.output_size, start=1):
            length = x.shape[axis] if x.shape[axis] is not None else tf.shape(x)[axis]
            mask = window_mask(length, size)  # [size, length] at axes (axis, axis + 1)
            mask = tf.reshape(mask, [1] * axis + [size, -1] + [1] * (x.shape.rank - axis - 1))
            spread = tf.expand_dims(x, axis)
            if self.pooling == "MAX":
                lowest = tf.constant(x.dtype.min, x.dtype)
                x = tf.reduce_max(tf.where(mask, spread, lowest), axis=axis + 1)
            else:
                weights = tf.cast(mask, x.dtype)
                counts = tf.reduce_sum(weights, axis=axis + 1)
                x = tf.reduce_sum(spread * weights, axis=axis + 1) / counts
        return x


class AdaptiveAvgPool2D(AdaptivePool):
    """Average of ``[batch, height, width, channels]`` over adaptive windows, to
    ``[batch, *output_size, channels]``."""

    spatial_rank = 2
    pooling = "AVG"


class AdaptiveMaxPool2D(AdaptivePool):
    """Max of ``[batch, height, width, channels]`` over adaptive windows, to
    ``[batch, *output_size, channels]``."""

    spatial_rank = 2
    pooling = "MAX"
