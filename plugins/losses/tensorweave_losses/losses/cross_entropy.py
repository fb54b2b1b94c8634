"""Cross-entropy losses: binary, categorical (one-hot or soft labels) and sparse (class ids).

Each takes logits (``from_logits=True``, the numerically stable path: extreme logits such
as ±1e4 give finite losses and gradients) or probabilities (``from_logits=False``, the
default, as in Keras and ``kl_divergence``). Label smoothing mixes the labels with the
uniform distribution.

>>> from tensorweave_losses.losses.cross_entropy import sparse_categorical_cross_entropy
>>> round(float(sparse_categorical_cross_entropy([0], [[0.0, 0.0]], from_logits=True)), 4)
0.6931
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tensorweave_losses.base import (
    EPSILON,
    align_labels,
    check_class_ids,
    check_probabilities,
    check_reduction,
    check_shapes,
    float_tensor,
    per_example,
    reduce_loss,
    warn_if_probabilities,
)
from tensorweave_losses.nodes import graph_function

__all__ = [
    "binary_cross_entropy",
    "categorical_cross_entropy",
    "sparse_categorical_cross_entropy",
    "check_smoothing",
    "smooth_classes",
    "log_probabilities",
]


def check_smoothing(loss: str, label_smoothing: float) -> None:
    """Raise ``ValueError`` unless ``label_smoothing`` is in [0, 1]."""
    if not 0.0 <= float(label_smoothing) <= 1.0:
        raise ValueError(f"{loss}: label_smoothing must be in [0, 1], got {label_smoothing}.")


def smooth_classes(labels: tf.Tensor, label_smoothing: float, axis: int = -1) -> tf.Tensor:
    """``labels * (1 - s) + s / num_classes`` (the labels as they are for ``s = 0``)."""
    if not label_smoothing:
        return labels
    num_classes = tf.cast(tf.shape(labels)[axis], labels.dtype)
    return labels * (1.0 - label_smoothing) + label_smoothing / num_classes


def log_probabilities(name: str, predictions: tf.Tensor, from_logits: bool, axis: int) -> tf.Tensor:
    """Class log-probabilities: ``log_softmax`` of logits, or the log of probabilities
    renormalised to sum to 1 and clipped away from 0 (as Keras)."""
    if from_logits:
        warn_if_probabilities(name, predictions, axis)
        return tf.nn.log_softmax(predictions, axis=axis)
    check_probabilities(name, predictions)
    p = predictions / tf.reduce_sum(predictions, axis=axis, keepdims=True)
    return tf.math.log(tf.clip_by_value(p, EPSILON, 1.0 - EPSILON))


@graph_function
def binary_cross_entropy(
    labels: Any,
    predictions: Any,
    *,
    from_logits: bool = False,
    label_smoothing: float = 0.0,
    sample_weight: Any = None,
    reduction: str = "mean",
) -> tf.Tensor:
    """Binary cross-entropy of labels in [0, 1] against logits (or probabilities).

    Per-example losses average over the last axis when inputs have rank ≥ 2 (one example
    per row, several independent binary outputs), as in Keras; rank-1 inputs are one
    output per example. Labels ``[batch]`` fit predictions ``[batch, 1]``.

    Args:
        labels: targets in [0, 1].
        predictions: probabilities, or logits with ``from_logits=True``.
        from_logits: whether ``predictions`` are logits (default ``False``: probabilities,
            as in Keras).
        label_smoothing: squeeze labels towards 0.5: ``y * (1 - s) + 0.5 * s``.
        sample_weight: weights per example (or per element).
        reduction: ``"mean"``, ``"sum"`` or ``"none"``.

    >>> round(float(binary_cross_entropy([[1.0]], [[0.0]], from_logits=True)), 4)
    0.6931
    """
    name = "binary_cross_entropy"
    check_reduction(name, reduction)
    check_smoothing(name, label_smoothing)
    predictions = float_tensor(predictions)
    labels = align_labels(tf.cast(tf.convert_to_tensor(labels), predictions.dtype), predictions)
    check_shapes(name, labels, predictions, "give one label in [0, 1] per prediction.")
    if label_smoothing:
        labels = labels * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        elements = tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=predictions)
    else:
        check_probabilities(name, predictions)
        p = tf.clip_by_value(predictions, EPSILON, 1.0 - EPSILON)
        elements = -(labels * tf.math.log(p) + (1.0 - labels) * tf.math.log1p(-p))
    return reduce_loss(name, per_example(elements), sample_weight, reduction)


@graph_function
def categorical_cross_entropy(
    labels: Any,
    predictions: Any,
    *,
    from_logits: bool = False,
    label_smoothing: float = 0.0,
    axis: int = -1,
    sample_weight: Any = None,
    reduction: str = "mean",
) -> tf.Tensor:
    """Cross-entropy of one-hot (or soft) label distributions against class scores.

    Args:
        labels: one distribution per example, the shape of ``predictions``.
        predictions: logits, or probabilities with ``from_logits=False`` (renormalised to
            sum to 1, then clipped away from 0).
        from_logits: whether ``predictions`` are logits (default ``False``:
            probabilities, as in Keras). Eager probability-looking logits (rows in [0, 1]
            summing to 1) raise a ``ProbabilitiesAsLogitsWarning``.
        label_smoothing: ``y * (1 - s) + s / n_classes``.
        axis: the class axis.
        sample_weight: weights per example.
        reduction: ``"mean"``, ``"sum"`` or ``"none"``.

    >>> round(float(categorical_cross_entropy([[0.0, 1.0]], [[0.0, 0.0]], from_logits=True)), 4)
    0.6931
    """
    name = "categorical_cross_entropy"
    check_reduction(name, reduction)
    check_smoothing(name, label_smoothing)
    predictions = float_tensor(predictions)
    labels = tf.cast(tf.convert_to_tensor(labels), predictions.dtype)
    check_shapes(
        name,
        labels,
        predictions,
        "one-hot labels need the predictions' shape; for integer class ids use "
        "sparse_categorical_cross_entropy.v1.",
    )
    labels = smooth_classes(labels, label_smoothing, axis)
    if from_logits:
        warn_if_probabilities(name, predictions, axis)
        losses = tf.nn.softmax_cross_entropy_with_logits(labels, predictions, axis=axis)
    else:
        log_p = log_probabilities(name, predictions, False, axis)
        losses = -tf.reduce_sum(labels * log_p, axis=axis)
    return reduce_loss(name, losses, sample_weight, reduction)


@graph_function
def sparse_categorical_cross_entropy(
    labels: Any,
    predictions: Any,
    *,
    from_logits: bool = False,
    label_smoothing: float = 0.0,
    sample_weight: Any = None,
    reduction: str = "mean",
) -> tf.Tensor:
    """Cross-entropy of integer class ids against class scores on the last axis.

    Args:
        labels: class ids in ``[0, n_classes)``, the shape of ``predictions`` without its
            last axis (a trailing axis of 1 is accepted). Ids out of range raise
            ``LossValueError`` eagerly and fail an assert inside compiled graphs.
        predictions: logits ``[..., n_classes]``, or probabilities with
            ``from_logits=False``.
        from_logits: whether ``predictions`` are logits (default ``False``: probabilities,
            as in Keras).
        label_smoothing: as in ``categorical_cross_entropy``.
        sample_weight: weights per example.
        reduction: ``"mean"``, ``"sum"`` or ``"none"``.

    >>> round(float(sparse_categorical_cross_entropy([1], [[0.0, 0.0, 0.0]], from_logits=True)), 4)
    1.0986
    """
    name = "sparse_categorical_cross_entropy"
    check_reduction(name, reduction)
    check_smoothing(name, label_smoothing)
    predictions = float_tensor(predictions)
    labels = tf.convert_to_tensor(labels)
    if labels.dtype.is_floating and _is_whole(labels):
        labels = tf.cast(labels, tf.int64)
    if (
        labels.shape.rank is not None
        and predictions.shape.rank is not None
        and labels.shape.rank == predictions.shape.rank
        and labels.shape[-1] == 1
    ):
        labels = tf.squeeze(labels, -1)
    check_shapes(
        name,
        labels,
        predictions,
        "give one class id per example; for one-hot labels use categorical_cross_entropy.v1.",
        drop_last=True,
    )
    n_classes = predictions.shape[-1]
    labels = check_class_ids(name, labels, n_classes)
    if label_smoothing or not from_logits:
        depth = n_classes if n_classes is not None else tf.shape(predictions)[-1]
        one_hot = tf.one_hot(labels, depth, dtype=predictions.dtype)
        return categorical_cross_entropy.function(
            one_hot,
            predictions,
            from_logits=from_logits,
            label_smoothing=label_smoothing,
            sample_weight=sample_weight,
            reduction=reduction,
        )
    warn_if_probabilities(name, predictions)
    losses = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=predictions)
    return reduce_loss(name, losses, sample_weight, reduction)


def _is_whole(labels: tf.Tensor) -> bool:
    """Float labels that are eagerly known to hold whole numbers (ids stored as floats)."""
    if not (tf.executing_eagerly() and hasattr(labels, "numpy")):
        return True
    values = labels.numpy()
    return bool((values == values.round()).all())
