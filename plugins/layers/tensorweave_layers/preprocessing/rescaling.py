"""``Rescaling``: ``x * scale + offset``, as ``keras.layers.Rescaling`` (e.g. pixels from
``[0, 255]`` to ``[0, 1]`` with ``scale=1/255``, or to ``[-1, 1]`` with ``scale=1/127.5,
offset=-1``). Integer inputs (raw pixels) come out as float32. Nothing to adapt: the
numbers are options, stored with the layer's config.

>>> import tensorweave as tw
>>> x = tw.Input(n_units=2, name="x", dtype="uint8", value=[[0, 255]])
>>> Rescaling(x, scale=1 / 127.5, offset=-1.0)().numpy().tolist()
[[-1.0, 1.0]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner as name_owner
from tensorweave_layers._spatial import describe

__all__ = ["Rescaling"]


class Rescaling(tw.Layer):
    """Multiply by ``scale`` and add ``offset`` (numbers, or arrays broadcast on ``x``).

    Args:
        x: a numeric input.
        scale: the factor.
        offset: added after scaling.
    """

    def __init__(
        self,
        x: tw.Layer,
        *,
        scale: float | Sequence[Any] = 1.0,
        offset: float | Sequence[Any] = 0.0,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        owner = name_owner("Rescaling", name)
        if not (x.dtype.is_floating or x.dtype.is_integer) or x.dtype == tf.string:
            raise tw.InputValueError(
                f"{owner} scales numbers, but {describe(x)} is {x.dtype.name}. Fix: cast the "
                "input to a number first."
            )
        self.scale = scale if isinstance(scale, int | float) else np.asarray(scale).tolist()
        self.offset = offset if isinstance(offset, int | float) else np.asarray(offset).tolist()
        try:
            shape = np.broadcast_shapes(
                tuple(1 if d is None else d for d in x.shape), np.shape(scale), np.shape(offset)
            )
        except ValueError as err:
            raise tw.ShapeError(
                f"{owner}: scale {np.shape(scale)} and offset {np.shape(offset)} do not "
                f"broadcast on {describe(x)}. Fix: one number, or one per last-axis entry."
            ) from err
        if len(shape) != len(x.shape):
            raise tw.ShapeError(f"{owner}: scale/offset have more axes than {describe(x)}.")
        out = x.dtype if x.dtype.is_floating else tf.float32
        super().__init__(x, shape=x.shape, dtype=out, name=name, share_state_with=share_state_with)

    def compute(self, x: Any) -> tf.Tensor:
        """``x * scale + offset`` in the layer's float dtype."""
        dtype = self.compute_dtype
        x = tf.cast(x, dtype)
        return x * tf.constant(self.scale, dtype) + tf.constant(self.offset, dtype)
