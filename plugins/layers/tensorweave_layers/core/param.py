"""``Param``: an input-free layer holding a value you can change while a graph runs.

The value lives in a ``tf.Variable``, so a compiled graph reads its current value on
every call without retracing: set ``param.value = 0.01`` (a learning rate, a dropout
probability, a temperature) between steps. ``trainable=True`` makes it learnable.

>>> import tensorweave as tw
>>> lr = Param(0.1, name="lr")
>>> x = tw.Input(n_units=1, name="x", value=[[2.0]])
>>> f = tw.compile(x * lr)
>>> lr.value = 0.5
>>> f().numpy().tolist(), f.trace_count
([[1.0]], 1)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw
from tensorweave_layers.options.weights import ConstraintLike, RegularizerLike, WeightOptions

__all__ = ["Param"]


class Param(tw.Layer):
    """A changeable value as a layer (no inputs).

    Args:
        value: the initial value (scalar or array); its shape is the layer's shape.
        dtype: the dtype (default: from the value, floats as float32).
        trainable: whether gradients should update it.
        w_regularizer, w_constraint: of the value, when it is trained.
        name, share_state_with: see ``tw.Layer``.
    """

    def __init__(
        self,
        value: Any,
        *,
        dtype: tf.DType | str | None = None,
        trainable: bool = False,
        w_regularizer: RegularizerLike = None,
        w_constraint: ConstraintLike = None,
        name: str | None = None,
        share_state_with: Param | None = None,
    ) -> None:
        array = np.asarray(value)
        if dtype is None:
            dtype = tf.float32 if array.dtype.kind == "f" else tf.as_dtype(array.dtype)
        initial = tf.constant(array, dtype=dtype)
        self._initial = initial
        self._trainable = bool(trainable)
        self._weight_options = WeightOptions.resolve(
            f"Param {name!r}" if name else "Param", w_regularizer, w_constraint=w_constraint
        )
        super().__init__(
            shape=tuple(array.shape), dtype=dtype, name=name, share_state_with=share_state_with
        )

    def init_state(self) -> None:
        """The variable holding the value."""
        self.state.param = self._weight_options.weight(
            self.state, "param", self._initial, trainable=self._trainable
        )

    @property
    def value(self) -> tf.Tensor:
        """The current value."""
        return tf.convert_to_tensor(self.state.param)

    @value.setter
    def value(self, new: Any) -> None:
        self.assign(new)

    def assign(self, new: Any) -> None:
        """Set a new value of the same shape (a ``ShapeError`` otherwise)."""
        tensor = tf.convert_to_tensor(new, dtype=self.dtype)
        if tuple(tensor.shape.as_list()) != self.shape:
            raise tw.ShapeError(
                f"Param {self.name!r} holds shape {self.shape}, got {tuple(tensor.shape)}.\n"
                "  Fix: assign a value of the same shape (make a new Param to change it)."
            )
        self.state.param.assign(tensor)

    def compute(self) -> tf.Tensor:
        """The current value (differentiable when trainable)."""
        return tf.identity(self.state.param)
