"""Regression losses: mean squared, absolute, squared-logarithmic and absolute-percentage
errors, Huber, log-cosh and Poisson.

Per-example losses average over the last axis (one example per row), as in Keras; labels
``[batch]`` fit predictions ``[batch, 1]``.

>>> from tensorweave_losses.losses.regression import huber
>>> float(huber([[0.0, 0.0]], [[0.5, 3.0]], delta=1.0))  # (0.125 + 2.5) / 2
1.3125
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from tensorweave_losses.base import EPSILON, check_reduction, paired, per_example, reduce_loss
from tensorweave_losses.nodes import graph_function

__all__ = ["mse", "mae", "huber", "log_cosh", "poisson", "msle", "mape"]

_FIX = "labels must have the predictions' shape (one target per output)."


def _prepare(name: str, labels: Any, predictions: Any, reduction: str) -> tuple[Any, Any]:
    check_reduction(name, reduction)
    return paired(name, labels, predictions, _FIX)


@graph_function
def mse(
    labels: Any, predictions: Any, *, sample_weight: Any = None, reduction: str = "mean"
) -> tf.Tensor:
    """Mean squared error ``mean((labels - predictions) ** 2)``.

    >>> float(mse([[0.0, 0.0]], [[1.0, 3.0]]))
    5.0
    """
    labels, predictions = _prepare("mse", labels, predictions, reduction)
    return reduce_loss(
        "mse", per_example(tf.square(labels - predictions)), sample_weight, reduction
    )


@graph_function
def mae(
    labels: Any, predictions: Any, *, sample_weight: Any = None, reduction: str = "mean"
) -> tf.Tensor:
    """Mean absolute error ``mean(|labels - predictions|)``.

    >>> float(mae([[0.0, 0.0]], [[1.0, -3.0]]))
    2.0
    """
    labels, predictions = _prepare("mae", labels, predictions, reduction)
    return reduce_loss("mae", per_example(tf.abs(labels - predictions)), sample_weight, reduction)


@graph_function
def huber(
    labels: Any,
    predictions: Any,
    *,
    delta: float = 1.0,
    sample_weight: Any = None,
    reduction: str = "mean",
) -> tf.Tensor:
    """Huber loss: quadratic ``0.5 e²`` for ``|e| <= delta``, linear ``delta (|e| - delta/2)``
    beyond, so outliers pull less than with MSE.

    Args:
        delta: where the loss turns from quadratic to linear (> 0).
    """
    if not float(delta) > 0:
        raise ValueError(f"huber: delta must be > 0, got {delta}.")
    labels, predictions = _prepare("huber", labels, predictions, reduction)
    error = tf.abs(labels - predictions)
    delta_t = tf.cast(delta, error.dtype)
    quadratic = tf.minimum(error, delta_t)
    linear = error - quadratic
    elements = 0.5 * tf.square(quadratic) + delta_t * linear
    return reduce_loss("huber", per_example(elements), sample_weight, reduction)


@graph_function
def log_cosh(
    labels: Any, predictions: Any, *, sample_weight: Any = None, reduction: str = "mean"
) -> tf.Tensor:
    """``mean(log(cosh(predictions - labels)))``: about ``e² / 2`` for small errors and
    ``|e| - log 2`` for large ones, so it trains like MSE without MSE's pull from outliers.
    Computed as ``e + softplus(-2e) - log 2``, finite for any error.

    >>> round(float(log_cosh([[0.0, 1.0]], [[1.0, 1.0]])), 4)  # log(cosh(1)) / 2
    0.2169
    """
    labels, predictions = _prepare("log_cosh", labels, predictions, reduction)
    error = predictions - labels
    elements = error + tf.nn.softplus(-2.0 * error) - tf.cast(np.log(2.0), error.dtype)
    return reduce_loss("log_cosh", per_example(elements), sample_weight, reduction)


@graph_function
def poisson(
    labels: Any, predictions: Any, *, sample_weight: Any = None, reduction: str = "mean"
) -> tf.Tensor:
    """Poisson negative log-likelihood (up to a constant) ``mean(p - y log(p + eps))`` of
    counts ``labels`` under predicted rates ``predictions`` (> 0, e.g. after ``exp`` or
    ``softplus``).

    >>> round(float(poisson([[2.0]], [[2.0]])), 4)  # 2 - 2 log 2
    0.6137
    """
    labels, predictions = _prepare("poisson", labels, predictions, reduction)
    elements = predictions - labels * tf.math.log(predictions + EPSILON)
    return reduce_loss("poisson", per_example(elements), sample_weight, reduction)


@graph_function
def msle(
    labels: Any, predictions: Any, *, sample_weight: Any = None, reduction: str = "mean"
) -> tf.Tensor:
    """Mean squared logarithmic error ``mean((log(1 + p) - log(1 + y)) ** 2)``: relative
    errors of positive targets; values below ``1e-7`` count as ``1e-7`` (as Keras).

    >>> round(float(msle([[0.0]], [[1.7182818]])), 4)  # (log e - log 1) ** 2
    1.0
    """
    labels, predictions = _prepare("msle", labels, predictions, reduction)
    first = tf.math.log(tf.maximum(predictions, EPSILON) + 1.0)
    second = tf.math.log(tf.maximum(labels, EPSILON) + 1.0)
    return reduce_loss("msle", per_example(tf.square(first - second)), sample_weight, reduction)


@graph_function
def mape(
    labels: Any, predictions: Any, *, sample_weight: Any = None, reduction: str = "mean"
) -> tf.Tensor:
    """Mean absolute percentage error ``100 * mean(|y - p| / max(|y|, 1e-7))`` (as Keras):
    errors relative to the targets, in percent.

    >>> round(float(mape([[2.0, 4.0]], [[1.0, 5.0]])), 4)  # (50 + 25) / 2
    37.5
    """
    labels, predictions = _prepare("mape", labels, predictions, reduction)
    elements = 100.0 * tf.abs((labels - predictions) / tf.maximum(tf.abs(labels), EPSILON))
    return reduce_loss("mape", per_example(elements), sample_weight, reduction)
