"""Regression losses: mean squared error, mean absolute error and Huber.

Per-example losses average over the last axis (one example per row), as in Keras; labels
``[batch]`` fit predictions ``[batch, 1]``.

>>> from tensorweave_losses.regression import huber
>>> float(huber([[0.0, 0.0]], [[0.5, 3.0]], delta=1.0))  # (0.125 + 2.5) / 2
1.3125
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tensorweave_losses.base import (
    align_labels,
    check_reduction,
    check_shapes,
    float_tensor,
    graph_function,
    reduce_loss,
)

__all__ = ["mse", "mae", "huber"]

_FIX = "labels must have the predictions' shape (one target per output)."


def _prepare(name: str, labels: Any, predictions: Any, reduction: str) -> tuple[Any, Any]:
    check_reduction(name, reduction)
    predictions = float_tensor(predictions)
    labels = align_labels(tf.cast(tf.convert_to_tensor(labels), predictions.dtype), predictions)
    check_shapes(name, labels, predictions, _FIX)
    return labels, predictions


def _per_example(elements: tf.Tensor) -> tf.Tensor:
    if elements.shape.rank is not None and elements.shape.rank >= 2:
        return tf.reduce_mean(elements, axis=-1)
    return elements


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
        "mse", _per_example(tf.square(labels - predictions)), sample_weight, reduction
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
    return reduce_loss("mae", _per_example(tf.abs(labels - predictions)), sample_weight, reduction)


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
    return reduce_loss("huber", _per_example(elements), sample_weight, reduction)
