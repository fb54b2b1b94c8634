"""Margin losses for maximum-margin (SVM-style) classification: hinge, squared hinge and
categorical hinge.

>>> from tensorweave_losses.losses.margin import hinge, squared_hinge
>>> float(hinge([[1.0, 0.0]], [[0.5, -2.0]]))  # labels 0/1 become -1/+1
0.25
>>> float(squared_hinge([[1.0, 0.0]], [[0.5, -2.0]]))
0.125
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tensorweave_losses.base import ONE_HOT_FIX, check_reduction, paired, per_example, reduce_loss
from tensorweave_losses.nodes import graph_function

__all__ = ["hinge", "squared_hinge", "categorical_hinge", "margins"]


def margins(name: str, labels: Any, predictions: Any) -> tf.Tensor:
    """``max(1 - labels * predictions, 0)`` per element, 0/1 labels mapped to -1/+1 (when
    every label is 0 or 1, as Keras)."""
    labels, predictions = paired(
        name, labels, predictions, "give one -1/+1 (or 0/1) label per score."
    )
    is_binary = tf.reduce_all(tf.logical_or(tf.equal(labels, 0.0), tf.equal(labels, 1.0)))
    labels = tf.where(is_binary, 2.0 * labels - 1.0, labels)
    return tf.nn.relu(1.0 - labels * predictions)


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
    check_reduction("hinge", reduction)
    elements = margins("hinge", labels, predictions)
    return reduce_loss("hinge", per_example(elements), sample_weight, reduction)


@graph_function
def squared_hinge(
    labels: Any, predictions: Any, *, sample_weight: Any = None, reduction: str = "mean"
) -> tf.Tensor:
    """Squared hinge loss ``mean(max(1 - labels * predictions, 0) ** 2)`` over the last
    axis: smooth at the margin, and large violations cost more than with ``hinge``.

    >>> float(squared_hinge([[1.0, 0.0]], [[0.5, 2.0]]))  # (0.5² + 3²) / 2
    4.625

    Args:
        labels: -1/+1 targets; 0/1 labels (every value 0 or 1) are mapped to -1/+1.
        predictions: real-valued scores (not probabilities).
        sample_weight: weights per example.
        reduction: ``"mean"``, ``"sum"`` or ``"none"``.
    """
    check_reduction("squared_hinge", reduction)
    elements = tf.square(margins("squared_hinge", labels, predictions))
    return reduce_loss("squared_hinge", per_example(elements), sample_weight, reduction)


@graph_function
def categorical_hinge(
    labels: Any, predictions: Any, *, sample_weight: Any = None, reduction: str = "mean"
) -> tf.Tensor:
    """Multi-class hinge ``max(1 + neg - pos, 0)`` per example (Crammer and Singer), with
    ``pos = sum(y * s)`` the true class's score and ``neg = max((1 - y) * s)`` the best
    other one (at least 0, as Keras): the true class must win by a margin of 1.

    Args:
        labels: one-hot labels ``[..., num_classes]``, the shape of ``predictions``.
        predictions: class scores (not probabilities).
        sample_weight: weights per example.
        reduction: ``"mean"``, ``"sum"`` or ``"none"``.

    >>> round(float(categorical_hinge([[0.0, 1.0, 0.0]], [[0.3, 0.8, 0.6]])), 4)  # 1 + 0.6 - 0.8
    0.8
    """
    name = "categorical_hinge"
    check_reduction(name, reduction)
    labels, predictions = paired(name, labels, predictions, ONE_HOT_FIX)
    true_score = tf.reduce_sum(labels * predictions, axis=-1)
    best_wrong = tf.reduce_max((1.0 - labels) * predictions, axis=-1)
    losses = tf.nn.relu(best_wrong - true_score + 1.0)
    return reduce_loss(name, losses, sample_weight, reduction)
