"""Sparsemax and its loss (Martins & Astudillo, 2016): a softmax alternative whose
probabilities can be exactly zero, with the convex loss whose gradient is
``sparsemax(z) - labels``.

>>> from tensorweave_losses.losses.sparsemax import sparsemax, sparsemax_loss
>>> sparsemax([[2.0, 0.0, -1.0]]).numpy().tolist()
[[1.0, 0.0, 0.0]]
>>> float(sparsemax_loss([[1.0, 0.0, 0.0]], [[2.0, 0.0, -1.0]]))
0.0
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tensorweave_losses.base import check_reduction, check_shapes, float_tensor, reduce_loss
from tensorweave_losses.nodes import graph_function

__all__ = ["sparsemax", "sparsemax_loss"]


def _threshold(z: tf.Tensor) -> tf.Tensor:
    """The threshold ``tau`` (shape ``[..., 1]``) with ``sparsemax(z) = max(z - tau, 0)``."""
    n = tf.shape(z)[-1]
    z_sorted = tf.sort(z, axis=-1, direction="DESCENDING")
    cumulative = tf.cumsum(z_sorted, axis=-1)
    k = tf.cast(tf.range(1, n + 1), z.dtype)
    in_support = tf.cast(1.0 + k * z_sorted > cumulative, tf.int32)
    support = tf.maximum(tf.reduce_sum(in_support, axis=-1, keepdims=True), 1)
    tau_sum = tf.gather(cumulative, support - 1, batch_dims=z.shape.rank - 1)
    return (tau_sum - 1.0) / tf.cast(support, z.dtype)


def sparsemax(logits: Any) -> tf.Tensor:
    """The Euclidean projection of ``logits`` onto the probability simplex (last axis)."""
    z = float_tensor(logits)
    z = z - tf.reduce_mean(z, axis=-1, keepdims=True)  # shift-invariant; keeps values small
    return tf.nn.relu(z - _threshold(z))


@graph_function
def sparsemax_loss(
    labels: Any,
    predictions: Any,
    *,
    sample_weight: Any = None,
    reduction: str = "mean",
) -> tf.Tensor:
    """The sparsemax loss of label distributions against logits (the last axis).

    ``loss = -q·z + ½ Σ_{j: p_j>0} (z_j² - τ²) + ½ ‖q‖²`` with ``p = sparsemax(z)``; it is
    ≥ 0 and is 0 exactly when ``labels == sparsemax(predictions)``.

    Args:
        labels: target distributions (one-hot or soft), shaped like ``predictions``.
        predictions: logits (rank ≥ 2, classes last).
        sample_weight: weights per example.
        reduction: ``"mean"``, ``"sum"`` or ``"none"``.
    """
    name = "sparsemax_loss"
    check_reduction(name, reduction)
    z = float_tensor(predictions)
    q = tf.cast(tf.convert_to_tensor(labels), z.dtype)
    check_shapes(name, q, z, "labels must be distributions shaped like the logits.")
    z = z - tf.reduce_mean(z, axis=-1, keepdims=True)
    tau = _threshold(z)
    p = tf.nn.relu(z - tau)
    support_part = tf.where(p > 0, p * (z - 0.5 * p), tf.zeros_like(p))
    label_part = q * (0.5 * q - z)
    losses = tf.reduce_sum(support_part + label_part, axis=-1)
    return reduce_loss(name, tf.nn.relu(losses), sample_weight, reduction)
