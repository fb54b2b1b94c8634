"""Hinge loss for maximum-margin (SVM-style) binary classification.

>>> from tensorweave_losses.margin import hinge
>>> float(hinge([[1.0, 0.0]], [[0.5, -2.0]]))  # labels 0/1 become -1/+1
0.25
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

__all__ = ["hinge"]


@graph_function
def hinge(
    labels: Any, predictions: Any, *, sample_weight: Any = None, reduction: str = "mean"
) -> tf.Tensor:
    """Hinge loss ``mean(max(1 - labels * predictions, 0))`` over the last axis.

    Args:
        labels: -1/+1 targets; 0/1 labels (every value 0 or 1) are mapped to -1/+1.
        predictions: real-valued scores (not probabilities).
        sample_weight: weights per example.
        reduction: ``"mean"``, ``"sum"`` or ``"none"``.
    """
    name = "hinge"
    check_reduction(name, reduction)
    predictions = float_tensor(predictions)
    labels = align_labels(tf.cast(tf.convert_to_tensor(labels), predictions.dtype), predictions)
    check_shapes(name, labels, predictions, "give one -1/+1 (or 0/1) label per score.")
    is_binary = tf.reduce_all(tf.logical_or(tf.equal(labels, 0.0), tf.equal(labels, 1.0)))
    labels = tf.where(is_binary, 2.0 * labels - 1.0, labels)
    elements = tf.nn.relu(1.0 - labels * predictions)
    if elements.shape.rank is not None and elements.shape.rank >= 2:
        elements = tf.reduce_mean(elements, axis=-1)
    return reduce_loss(name, elements, sample_weight, reduction)
