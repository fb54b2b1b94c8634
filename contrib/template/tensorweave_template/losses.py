"""``template_log_cosh.v1``: the mean of ``log(cosh(predictions - labels))``.

Like the squared error near zero and like the absolute error far from it, so outliers pull
less. Computed as ``|d| + softplus(-2|d|) - log(2)``, which never overflows (``cosh`` of a
large number does).

Labels first, then predictions, as every tensorweave (and Keras) loss and metric. The same
function serves both worlds: on tensors it returns the loss value; given ``tw.Layer``
arguments it returns a ``tw.Lambda`` node that computes it inside a graph.

>>> import tensorweave as tw
>>> round(float(log_cosh([[0.0, 0.0]], [[0.0, 1.0]])), 4)
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


def log_cosh(labels: Any, predictions: Any) -> Any:
    """The mean log-cosh error, a scalar; a ``tw.Lambda`` node when given layers.

    Args:
        labels: the expected values; a tensor (or array), or a ``tw.Layer`` producing one.
        predictions: the same shape as ``labels``; a tensor, array or layer.
    """
    if isinstance(labels, tw.Layer) or isinstance(predictions, tw.Layer):
        # Layers become the node's inputs; a plain value on either side is bound as a constant.
        # tw.lift is the core's one way to lift a function of tensors into a graph node.
        return tw.lift(log_cosh, labels, predictions, name="log_cosh")
    predictions = tf.convert_to_tensor(predictions)
    if not predictions.dtype.is_floating:
        predictions = tf.cast(predictions, tf.float32)
    labels = tf.cast(labels, predictions.dtype)
    if not predictions.shape.is_compatible_with(labels.shape):
        raise tw.ShapeError(
            f"log_cosh: labels of shape {labels.shape} and predictions of shape "
            f"{predictions.shape} differ (no silent broadcasting). Fix: reshape one to the other."
        )
    d = tf.abs(predictions - labels)
    return tf.reduce_mean(d + tf.math.softplus(-2.0 * d) - math.log(2.0))
