"""Regularizers: penalties on a weight's value, added to the training loss.

Each is a small frozen class registered by name (``"l2.v1"``…) in ``tw.regularizers``: its
instances are the penalty functions ``weight -> scalar``, its options are keywords with
defaults (Keras's names and formulas), so a layer's ``w_regularizer=`` takes a name
(``"l2"``: the defaults), a config block (``{"@regularizers": "l2.v1", "l2": 0.1}``) or any
function, e.g. ``L2(0.1)``. A layer records the penalty with its variable
(``LayerState.regularize``) and ``tw.regularization_loss(graph)`` sums the terms.

>>> import tensorflow as tf
>>> w = tf.constant([[1.0, -2.0], [0.0, 3.0]])
>>> float(L1(0.1)(w)), float(L2()(w)), float(L1L2(l1=0.1, l2=0.01)(w))
(0.6000000238418579, 0.14000000059604645, 0.7400000095367432)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import tensorflow as tf

import tensorweave as tw

__all__ = ["L1", "L2", "L1L2", "Orthogonal"]


def _check_factor(value: float, name: str, owner: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise tw.ArgumentError(
            f"{owner}: {name} must be a number >= 0, got {value!r}. Fix: e.g. {name}=0.01."
        )


@dataclass(frozen=True)
class L1:
    """``l1 * sum(|w|)``: pushes weights to exactly zero (sparse weights)."""

    l1: float = 0.01

    def __post_init__(self) -> None:
        _check_factor(self.l1, "l1", "l1 regularizer")

    def __call__(self, w: Any) -> tf.Tensor:
        w = tf.convert_to_tensor(w)
        return tf.cast(self.l1, w.dtype) * tf.reduce_sum(tf.abs(w))


@dataclass(frozen=True)
class L2:
    """``l2 * sum(w ** 2)``: weight decay added to the loss (Keras's ``L2``)."""

    l2: float = 0.01

    def __post_init__(self) -> None:
        _check_factor(self.l2, "l2", "l2 regularizer")

    def __call__(self, w: Any) -> tf.Tensor:
        w = tf.convert_to_tensor(w)
        return tf.cast(self.l2, w.dtype) * tf.reduce_sum(tf.square(w))


@dataclass(frozen=True)
class L1L2:
    """``l1 * sum(|w|) + l2 * sum(w ** 2)``, 0.01 of each by default (as Keras documents and
    Keras 2 had it; Keras 3's ``L1L2()`` defaults to no penalty)."""

    l1: float = 0.01
    l2: float = 0.01

    def __post_init__(self) -> None:
        _check_factor(self.l1, "l1", "l1_l2 regularizer")
        _check_factor(self.l2, "l2", "l1_l2 regularizer")

    def __call__(self, w: Any) -> tf.Tensor:
        return L1(self.l1)(w) + L2(self.l2)(w)


@dataclass(frozen=True)
class Orthogonal:
    """Keeps the rows (``mode="rows"``) or columns of a 2-D weight orthogonal: ``factor``
    times the mean absolute cosine between every pair of distinct rows (Keras's
    ``OrthogonalRegularizer``).

    >>> import tensorflow as tf
    >>> round(float(Orthogonal(1.0)(tf.eye(3))), 4), round(float(Orthogonal(1.0)(tf.ones((2, 3)))), 4)
    (0.0, 1.0)
    """

    factor: float = 0.01
    mode: str = "rows"

    def __post_init__(self) -> None:
        _check_factor(self.factor, "factor", "orthogonal regularizer")
        if self.mode not in ("rows", "columns"):
            raise tw.ArgumentError(
                f"orthogonal regularizer: mode must be 'rows' or 'columns', got {self.mode!r}."
            )

    def __call__(self, w: Any) -> tf.Tensor:
        w = tf.convert_to_tensor(w)
        if w.shape.rank != 2:
            raise tw.ShapeError(
                f"orthogonal regularizer: needs a 2-D weight, got shape {w.shape}. Fix: use it "
                "on dense layers' weights (Linear, FC), not on kernels of higher rank."
            )
        if self.mode == "columns":
            w = tf.transpose(w)
        rows = w * tf.math.rsqrt(
            tf.maximum(tf.reduce_sum(tf.square(w), axis=1, keepdims=True), 1e-7**2)
        )
        size = int(rows.shape[0])
        product = tf.matmul(rows, rows, transpose_b=True) * (1.0 - tf.eye(size, dtype=w.dtype))
        pairs = size * (size - 1.0) / 2.0
        return tf.cast(self.factor * 0.5 / pairs, w.dtype) * tf.reduce_sum(tf.abs(product))
