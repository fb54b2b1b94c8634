"""Constraints: projections applied to a weight after each training update.

Each is a small frozen class registered by name (``"max_norm.v1"``…) in ``tw.constraints``:
its instances are functions ``weight -> weight``, its options keywords with defaults
(Keras's names and formulas), so a layer's ``w_constraint=`` takes a name (``"non_neg"``),
a config block (``{"@constraints": "max_norm.v1", "max_value": 3}``) or any function. A
layer passes it to TensorFlow as ``tf.Variable(..., constraint=fn)``; the trainer applies
``v.assign(v.constraint(v))`` after each update.

Norms are taken over ``axis`` (``0``: each output unit's incoming weights of a ``[in, out]``
matrix; ``[0, 1, 2]`` for each filter of a ``Conv2D`` kernel ``[h, w, in, out]``).

>>> import tensorflow as tf
>>> w = tf.constant([[3.0, -1.0], [4.0, 0.0]])
>>> [[round(float(v), 3) for v in row] for row in MaxNorm(max_value=2.0)(w).numpy()]
[[1.2, -1.0], [1.6, 0.0]]
>>> NonNeg()(w).numpy().tolist()
[[3.0, 0.0], [4.0, 0.0]]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import tensorflow as tf

import tensorweave as tw

__all__ = ["MaxNorm", "MinMaxNorm", "NonNeg", "UnitNorm"]

Axis = int | Sequence[int]
EPSILON = 1e-7  # Keras's backend.epsilon(): keeps a zero column at zero


def rescale_norms(w: Any, axis: Axis, desired: Callable[[tf.Tensor], tf.Tensor]) -> tf.Tensor:
    """``w`` with the norm of each slice over ``axis`` moved from ``n`` to ``desired(n)``."""
    w = tf.convert_to_tensor(w)
    axes = [axis] if isinstance(axis, int) else list(axis)
    norms = tf.sqrt(tf.reduce_sum(tf.square(w), axis=axes, keepdims=True))
    return w * (desired(norms) / (EPSILON + norms))


def _check_non_negative(owner: str, **values: float) -> None:
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise tw.ArgumentError(f"{owner}: {name} must be a number >= 0, got {value!r}.")


@dataclass(frozen=True)
class MaxNorm:
    """Scale down slices whose norm exceeds ``max_value`` (Srivastava et al., 2014)."""

    max_value: float = 2.0
    axis: Axis = 0

    def __post_init__(self) -> None:
        _check_non_negative("max_norm constraint", max_value=self.max_value)

    def __call__(self, w: Any) -> tf.Tensor:
        return rescale_norms(w, self.axis, lambda n: tf.clip_by_value(n, 0.0, self.max_value))


@dataclass(frozen=True)
class MinMaxNorm:
    """Move slice norms into ``[min_value, max_value]``, a ``rate`` of the way each time
    (``rate=1``: all the way)."""

    min_value: float = 0.0
    max_value: float = 1.0
    rate: float = 1.0
    axis: Axis = 0

    def __post_init__(self) -> None:
        _check_non_negative(
            "min_max_norm constraint",
            min_value=self.min_value,
            max_value=self.max_value,
            rate=self.rate,
        )
        if self.min_value > self.max_value:
            raise tw.ArgumentError(
                f"min_max_norm constraint: min_value {self.min_value} exceeds max_value "
                f"{self.max_value}. Fix: give min_value <= max_value."
            )

    def __call__(self, w: Any) -> tf.Tensor:
        def desired(n: tf.Tensor) -> tf.Tensor:
            clipped = tf.clip_by_value(n, self.min_value, self.max_value)
            return self.rate * clipped + (1.0 - self.rate) * n

        return rescale_norms(w, self.axis, desired)


@dataclass(frozen=True)
class NonNeg:
    """Negative entries become zero."""

    def __call__(self, w: Any) -> tf.Tensor:
        w = tf.convert_to_tensor(w)
        return tf.maximum(w, tf.zeros_like(w))


@dataclass(frozen=True)
class UnitNorm:
    """Every slice scaled to norm 1."""

    axis: Axis = 0

    def __call__(self, w: Any) -> tf.Tensor:
        return rescale_norms(w, self.axis, tf.ones_like)
