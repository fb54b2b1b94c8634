"""``Resize``: images resized to a fixed ``height`` x ``width``, whatever their size, with
``tf.image.resize`` (Keras's ``Resizing``): ``bilinear`` (default), ``nearest``,
``bicubic``, ``area``, ``lanczos3``, ``lanczos5``, ``gaussian`` or ``mitchellcubic``. The
target excludes the batch and channel axes, as in Keras.

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(batch_shape=(None, None, None, 3), name="img")   # any size in
>>> small = Resize(x, 4, 6)
>>> small.shape, small.compute(tf.ones((2, 9, 7, 3))).shape.as_list()
((None, 4, 6, 3), [2, 4, 6, 3])
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner
from tensorweave_layers._spatial import LAYOUTS, check_rank

__all__ = ["Resize"]

METHODS = (
    "bilinear",
    "nearest",
    "bicubic",
    "area",
    "lanczos3",
    "lanczos5",
    "gaussian",
    "mitchellcubic",
)


class Resize(tw.Layer):
    """Resize ``[batch, height, width, channels]`` to ``[batch, height, width, channels]``
    of the given size.

    Args:
        x: the input images (dense, known channels).
        height, width: the output size.
        interpolation: the ``tf.image.resize`` method (see the module docstring).
        antialias: filter when downsampling (``tf.image.resize``'s ``antialias``).
        name, share_state_with: see ``tw.Layer`` (no variables).
    """

    def __init__(
        self,
        x: tw.Layer,
        height: int,
        width: int,
        *,
        interpolation: str = "bilinear",
        antialias: bool = False,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        who = owner("Resize", name)
        check_rank(x, 4, LAYOUTS[2], who, f"reshape the input to {LAYOUTS[2]}.")
        self.height = tw.positive_int(height, "height", who)
        self.width = tw.positive_int(width, "width", who)
        if interpolation not in METHODS:
            raise tw.ArgumentError(
                f"{who}: interpolation must be one of {METHODS}, got {interpolation!r}."
            )
        self.interpolation = interpolation
        self.antialias = bool(antialias)
        keeps = interpolation == "nearest" or x.dtype.is_floating
        dtype = x.dtype if keeps else tf.float32  # integer images interpolate to floats
        super().__init__(
            x,
            shape=(x.shape[0], self.height, self.width, x.shape[-1]),
            dtype=dtype,
            name=name,
            share_state_with=share_state_with,
        )

    def compute(self, x: Any) -> tf.Tensor:
        """``tf.image.resize`` to ``(height, width)``."""
        resized = tf.image.resize(
            x, (self.height, self.width), method=self.interpolation, antialias=self.antialias
        )
        return tf.cast(resized, self.compute_dtype)
