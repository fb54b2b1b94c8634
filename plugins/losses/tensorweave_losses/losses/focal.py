"""Focal cross-entropies (Lin et al., 2017): cross-entropy scaled by ``(1 - p_t) ** gamma``,
so confident, correct predictions (easy examples) weigh less than hard ones.

``gamma=0`` gives the plain cross-entropy; ``alpha`` balances the classes. With
``from_logits=True`` the cross-entropy is computed from the logits directly (finite losses and
gradients for logits of any size), as Keras does.

>>> from tensorweave_losses.losses.focal import binary_focal_cross_entropy
>>> easy = binary_focal_cross_entropy([[1.0]], [[0.9]], gamma=2.0)
>>> hard = binary_focal_cross_entropy([[1.0]], [[0.1]], gamma=2.0)
>>> round(float(easy), 5), round(float(hard), 4)  # 0.01 * -log 0.9, 0.81 * -log 0.1
(0.00105, 1.8651)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

from tensorweave_losses.base import (
    EPSILON,
    ONE_HOT_FIX,
    check_probabilities,
    check_reduction,
    paired,
    per_example,
    reduce_loss,
)
from tensorweave_losses.losses.cross_entropy import (
    check_smoothing,
    log_probabilities,
    smooth_classes,
)
from tensorweave_losses.nodes import graph_function

__all__ = ["binary_focal_cross_entropy", "categorical_focal_cross_entropy"]


def _check_gamma(loss: str, gamma: float) -> None:
    if not float(gamma) >= 0.0:
        raise ValueError(f"{loss}: gamma must be >= 0, got {gamma}. Fix: pass gamma >= 0.")


@graph_function
def binary_focal_cross_entropy(
    labels: Any,
    predictions: Any,
    *,
    apply_class_balancing: bool = False,
    alpha: float = 0.25,
    gamma: float = 2.0,
    from_logits: bool = False,
    label_smoothing: float = 0.0,
    axis: int = -1,
    sample_weight: Any = None,
    reduction: str = "mean",
) -> tf.Tensor:
    """Binary focal cross-entropy ``(1 - p_t) ** gamma * BCE``, ``p_t`` the probability
    given to the true label; as ``keras.losses.BinaryFocalCrossentropy``.

    Per-example losses average over ``axis`` when inputs have rank >= 2, as
    ``binary_cross_entropy``; labels ``[batch]`` fit predictions ``[batch, 1]``.

    Args:
        labels: targets in [0, 1].
        predictions: probabilities, or logits with ``from_logits=True``.
        apply_class_balancing: weigh positives by ``alpha`` and negatives by ``1 - alpha``.
        alpha: the positives' weight when balancing.
        gamma: the focusing exponent (>= 0; 0 is the plain cross-entropy).
        from_logits: whether ``predictions`` are logits.
        label_smoothing: squeeze labels towards 0.5: ``y * (1 - s) + 0.5 * s``.
        axis: the axis the per-example mean runs over.
        sample_weight: weights per example (or per element).
        reduction: ``"mean"``, ``"sum"`` or ``"none"``.

    >>> round(float(binary_focal_cross_entropy([[0.0, 1.0]], [[0.0, 0.0]], from_logits=True)), 4)
    0.1733
    """
    name = "binary_focal_cross_entropy"
    check_reduction(name, reduction)
    check_smoothing(name, label_smoothing)
    _check_gamma(name, gamma)
    labels, predictions = paired(
        name, labels, predictions, "give one label in [0, 1] per prediction."
    )
    if label_smoothing:
        labels = labels * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        bce = tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=predictions)
        p = tf.sigmoid(predictions)
    else:
        check_probabilities(name, predictions)
        p = predictions
        clipped = tf.clip_by_value(p, EPSILON, 1.0 - EPSILON)
        bce = -(labels * tf.math.log(clipped) + (1.0 - labels) * tf.math.log(1.0 - clipped))
    p_t = labels * p + (1.0 - labels) * (1.0 - p)
    elements = tf.pow(1.0 - p_t, gamma) * bce
    if apply_class_balancing:
        elements = (labels * alpha + (1.0 - labels) * (1.0 - alpha)) * elements
    return reduce_loss(name, per_example(elements, axis), sample_weight, reduction)


@graph_function
def categorical_focal_cross_entropy(
    labels: Any,
    predictions: Any,
    *,
    alpha: float | Sequence[float] = 0.25,
    gamma: float = 2.0,
    from_logits: bool = False,
    label_smoothing: float = 0.0,
    axis: int = -1,
    sample_weight: Any = None,
    reduction: str = "mean",
) -> tf.Tensor:
    """Categorical focal cross-entropy ``sum(alpha * (1 - p) ** gamma * -y log p)`` over
    the classes; as ``keras.losses.CategoricalFocalCrossentropy``.

    Args:
        labels: one-hot (or soft) label distributions, the shape of ``predictions``.
        predictions: probabilities (renormalised to sum to 1, then clipped away from 0), or
            logits with ``from_logits=True``.
        alpha: a weight for every class, or one per class (a list of ``num_classes``).
        gamma: the focusing exponent (>= 0; 0 is ``alpha`` times the cross-entropy).
        from_logits: whether ``predictions`` are logits.
        label_smoothing: ``y * (1 - s) + s / num_classes``.
        axis: the class axis.
        sample_weight: weights per example.
        reduction: ``"mean"``, ``"sum"`` or ``"none"``.

    >>> loss = categorical_focal_cross_entropy([[0.0, 1.0]], [[0.0, 0.0]], from_logits=True)
    >>> round(float(loss), 4)  # 0.25 * 0.5 ** 2 * log 2
    0.0433
    """
    name = "categorical_focal_cross_entropy"
    check_reduction(name, reduction)
    check_smoothing(name, label_smoothing)
    _check_gamma(name, gamma)
    labels, predictions = paired(name, labels, predictions, ONE_HOT_FIX)
    labels = smooth_classes(labels, label_smoothing, axis)
    log_p = log_probabilities(name, predictions, from_logits, axis)
    p = tf.exp(log_p)
    weight = tf.cast(alpha, predictions.dtype) * tf.pow(1.0 - p, gamma)
    losses = tf.reduce_sum(weight * -labels * log_p, axis=axis)
    return reduce_loss(name, losses, sample_weight, reduction)
