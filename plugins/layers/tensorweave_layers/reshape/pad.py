"""``Pad``: pad each example's axes with a constant, or with their reflection, the way
``tf.pad`` does (``mode`` ``"constant"``, ``"reflect"``, ``"symmetric"``). The batch axis is
never padded: ``padding`` lists the other axes, as Keras's shapes exclude the batch.

``"reflect"`` mirrors without repeating the edge (``[1, 2, 3]`` -> ``[2, 1, 2, 3, 2]``),
``"symmetric"`` repeats it (``[1, 1, 2, 3, 3]``); each needs the axis at least as long as
its padding (longer, for ``"reflect"``). ``ZeroPadding1D/2D/3D`` are ``Pad`` of the spatial
axes with zeros.

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(shape=(3,), name="x", value=np.array([[1.0, 2.0, 3.0]]))
>>> Pad(x, [(1, 1)], mode="reflect")().numpy().tolist()
[[2.0, 1.0, 2.0, 3.0, 2.0]]
>>> Pad(x, 2, constant_values=-1.0).shape
(None, 7)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import describe, owner, require_dense
from tensorweave_layers._spatial import pairs_per_axis

__all__ = ["Pad"]

MODES = ("constant", "reflect", "symmetric")


class Pad(tw.Layer):
    """``tf.pad`` of every axis but the batch.

    Args:
        x: the input layer (dense), ``[batch, ...]``.
        padding: an int (both sides of every non-batch axis), one int per non-batch axis,
            or one ``(before, after)`` pair per non-batch axis.
        mode: ``"constant"``, ``"reflect"`` or ``"symmetric"``.
        constant_values: the value ``"constant"`` pads with.
        name, share_state_with: see ``tw.Layer`` (no variables).
    """

    def __init__(
        self,
        x: tw.Layer,
        padding: int | Sequence[int | Sequence[int]] = 1,
        *,
        mode: str = "constant",
        constant_values: float = 0.0,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        who = owner(type(self).__name__, name)
        require_dense(x, who)
        if len(x.shape) < 2:
            raise tw.ShapeError(f"{who}: the input {describe(x)} has no axis but the batch.")
        if mode not in MODES:
            raise tw.ArgumentError(f"{who}: mode must be one of {MODES}, got {mode!r}.")
        self.padding = pairs_per_axis(padding, len(x.shape) - 1, "padding", who)
        self.mode = mode
        self.constant_values = float(constant_values)
        shape: list[int | None] = [x.shape[0]]
        for axis, ((before, after), length) in enumerate(zip(self.padding, x.shape[1:]), 1):
            room = None if length is None else length - (1 if mode == "reflect" else 0)
            if mode != "constant" and room is not None and max(before, after) > room:
                raise tw.ShapeError(
                    f"{who}: {mode} padding of ({before}, {after}) on axis {axis} of input "
                    f"{describe(x)} needs at most {room}. Fix: pad less, or use mode='constant'."
                )
            shape.append(None if length is None else length + before + after)
        super().__init__(
            x, shape=shape, dtype=x.dtype, name=name, share_state_with=share_state_with
        )

    def compute(self, x: Any) -> tf.Tensor:
        """``tf.pad`` with this layer's amounts and mode."""
        x = tf.convert_to_tensor(x)
        return tf.pad(
            x,
            [(0, 0), *self.padding],
            mode=self.mode.upper(),
            constant_values=tf.cast(self.constant_values, x.dtype),
        )
