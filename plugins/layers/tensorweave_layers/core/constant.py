"""``Constant``: an input-free layer that always outputs the same value.

>>> import tensorweave as tw
>>> c = Constant([[1.0, 2.0]], name="c")
>>> c.shape, c().numpy().tolist()
((1, 2), [[1.0, 2.0]])
>>> x = tw.Input(n_units=2, name="x", value=[[3.0, 4.0]])
>>> (x + c)().numpy().tolist()
[[4.0, 6.0]]
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw

__all__ = ["Constant"]


class Constant(tw.Layer):
    """A fixed value as a layer (no inputs, no variables).

    Args:
        value: the value (scalar or array); its shape is the layer's shape.
        dtype: the dtype (default: from the value, floats as float32).
        name, share_state_with: see ``tw.Layer``.
    """

    def __init__(
        self,
        value: Any,
        *,
        dtype: tf.DType | str | None = None,
        name: str | None = None,
        share_state_with: Constant | None = None,
    ) -> None:
        array = np.asarray(value)
        if dtype is None:
            dtype = tf.float32 if array.dtype.kind == "f" else tf.as_dtype(array.dtype)
        self._value = array.astype(tf.as_dtype(dtype).as_numpy_dtype)
        super().__init__(
            shape=tuple(array.shape), dtype=dtype, name=name, share_state_with=share_state_with
        )

    @property
    def value(self) -> np.ndarray:
        """The value (a copy)."""
        return np.array(self._value)

    def compute(self) -> tf.Tensor:
        """The value as a tensor."""
        return tf.constant(self._value, dtype=self.compute_dtype)
