"""``template_log_cosh.v1``: the mean of ``log(cosh(predictions - targets))``.

Like the squared error near zero and like the absolute error far from it, so outliers pull
less. Computed as ``|d| + softplus(-2|d|) - log(2)``, which never overflows (``cosh`` of a
large number does).

The same function serves both worlds: on tensors it returns the loss value; given
``tw.Layer`` arguments it returns a ``tw.Lambda`` node that computes it inside a graph.

>>> import tensorweave as tw
>>> round(float(log_cosh([[0.0, 1.0]], [[0.0, 0.0]])), 4)
0.2169
>>> node = log_cosh(tw.Input(n_units=2), tw.Input(n_units=2))
>>> isinstance(node, tw.Lambda), node.shape
(True, ())
"""

from __future__ import annotations

import math
from typing import Any

import tensorflow as tf

import tensorweave as tw

__all__ = ["log_cosh"]


def log_cosh(predictions: Any, targets: Any) -> Any:
    """The mean log-cosh error, a scalar; a ``tw.Lambda`` node when given layers.

    Args:
        predictions: a tensor (or array), or a ``tw.Layer`` producing one.
        targets: the same shape as ``predictions``; a tensor, array or layer.
    """
    if isinstance(predictions, tw.Layer) or isinstance(targets, tw.Layer):
        # Layers become the node's inputs; a plain value on either side is bound as a constant.
        # tw.lift is the core's one way to lift a function of tensors into a graph node.
        return tw.lift(log_cosh, predictions, targets, name="log_cosh")
    predictions = tf.convert_to_tensor(predictions)
    if not predictions.dtype.is_floating:
        predictions = tf.cast(predictions, tf.float32)
    targets = tf.cast(targets, predictions.dtype)
    if not predictions.shape.is_compatible_with(targets.shape):
        raise tw.ShapeError(
            f"log_cosh: predictions of shape {predictions.shape} and targets of shape "
            f"{targets.shape} differ (no silent broadcasting). Fix: reshape one to the other."
        )
    d = tf.abs(predictions - targets)
    return tf.reduce_mean(d + tf.math.softplus(-2.0 * d) - math.log(2.0))
