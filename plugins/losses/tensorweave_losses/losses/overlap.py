"""Overlap of predicted and true masks: the Dice and Tversky losses (segmentation; the IoU
and Dice metrics are in ``tensorweave_losses.metrics.overlap``).

All of them come from the same counts: true positives ``tp = sum(y p)``, false positives
``fp = sum((1 - y) p)`` and false negatives ``fn = sum(y (1 - p))``, soft (``p`` a
probability, differentiable) for the losses and hard (``p`` thresholded) for the metrics.
The Tversky index ``tp / (tp + alpha fp + beta fn)`` is Dice at ``alpha = beta = 0.5`` and
IoU (Jaccard) at ``alpha = beta = 1``. The metrics accumulate the counts, so a figure over
many batches equals the figure over all of them at once.

>>> from tensorweave_losses.losses.overlap import dice
>>> round(float(dice([[1.0, 1.0, 0.0]], [[1.0, 0.0, 1.0]])), 4)  # 1 - 2 * 1 / (2 + 2)
0.5
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_losses.base import (
    EPSILON,
    check_probabilities,
    check_reduction,
    paired,
    reduce_loss,
)
from tensorweave_losses.nodes import graph_function

__all__ = ["dice", "tversky", "overlap_counts", "tversky_index", "MASK_FIX"]

MASK_FIX = "labels must be masks of the predictions' shape (one 0/1 label per prediction)."


def overlap_counts(
    labels: tf.Tensor,
    predictions: tf.Tensor,
    *,
    axis: int | Sequence[int] | None = None,
    weights: Any = None,
) -> tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
    """(tp, fp, fn) summed over ``axis`` (``None``: every axis), each entry weighted by
    ``weights`` (broadcast to the labels) when given."""
    positive, predicted = labels, predictions
    if weights is not None:
        positive, predicted = labels * weights, predictions * weights
    tp = tf.reduce_sum(positive * predictions, axis=axis)
    fp = tf.reduce_sum(predicted - positive * predictions, axis=axis)
    fn = tf.reduce_sum(positive - positive * predictions, axis=axis)
    return tp, fp, fn


def tversky_index(
    tp: tf.Tensor, fp: tf.Tensor, fn: tf.Tensor, alpha: float, beta: float
) -> tf.Tensor:
    """``tp / (tp + alpha fp + beta fn + 1e-7)`` (Keras's epsilon: empty masks give 0)."""
    return tp / (tp + alpha * fp + beta * fn + EPSILON)


def _soft_overlap(
    name: str,
    labels: Any,
    predictions: Any,
    axis: int | Sequence[int] | None,
    from_logits: bool,
    sample_weight: Any,
    reduction: str,
) -> tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
    check_reduction(name, reduction)
    labels, predictions = paired(name, labels, predictions, MASK_FIX)
    if sample_weight is not None and axis is None:
        raise tw.ArgumentError(
            f"{name}: sample_weight weighs examples, but axis=None pools every entry of the "
            "batch into one loss. Fix: pass axis= the non-batch axes (axis=(1, 2, 3) for "
            "masks [batch, height, width, channels]) for one loss per example."
        )
    if from_logits:
        predictions = tf.sigmoid(predictions)
    else:
        check_probabilities(name, predictions)
    return overlap_counts(labels, predictions, axis=axis)


@graph_function
def dice(
    labels: Any,
    predictions: Any,
    *,
    axis: int | Sequence[int] | None = None,
    from_logits: bool = False,
    sample_weight: Any = None,
    reduction: str = "mean",
) -> tf.Tensor:
    """Dice loss ``1 - 2 sum(y p) / (sum(y) + sum(p))`` of soft masks, as
    ``keras.losses.Dice``: insensitive to how much background there is.

    Args:
        labels: 0/1 (or soft) masks, the shape of ``predictions``.
        predictions: probabilities, or logits with ``from_logits=True`` (sigmoid per entry).
        axis: the axes summed over: ``None`` (Keras's default) pools the whole batch into one
            loss; the non-batch axes (e.g. ``(1, 2, 3)``) give one loss per example.
        from_logits: whether ``predictions`` are logits.
        sample_weight: weights per example (needs ``axis``).
        reduction: ``"mean"``, ``"sum"`` or ``"none"`` (over the per-example losses).

    >>> y = [[[1.0], [0.0]], [[1.0], [1.0]]]
    >>> p = [[[0.9], [0.2]], [[0.4], [1.0]]]
    >>> [round(v, 4) for v in dice(y, p, axis=(1, 2), reduction="none").numpy().tolist()]
    [0.1429, 0.1765]
    """
    tp, fp, fn = _soft_overlap(
        "dice", labels, predictions, axis, from_logits, sample_weight, reduction
    )
    return reduce_loss("dice", 1.0 - tversky_index(tp, fp, fn, 0.5, 0.5), sample_weight, reduction)


@graph_function
def tversky(
    labels: Any,
    predictions: Any,
    *,
    alpha: float = 0.5,
    beta: float = 0.5,
    axis: int | Sequence[int] | None = None,
    from_logits: bool = False,
    sample_weight: Any = None,
    reduction: str = "mean",
) -> tf.Tensor:
    """Tversky loss ``1 - tp / (tp + alpha fp + beta fn)`` of soft masks (Salehi et al.,
    2017): Dice with a price on false positives (``alpha``) and on false negatives
    (``beta``); ``beta > alpha`` favours recall. As ``keras.losses.Tversky`` (which, up
    to Keras 3.15, applies ``alpha`` to false negatives: keras-team/keras#23333).

    Args:
        labels: 0/1 (or soft) masks, the shape of ``predictions``.
        predictions: probabilities, or logits with ``from_logits=True`` (sigmoid per entry).
        alpha: the weight of false positives.
        beta: the weight of false negatives.
        axis: the axes summed over (``None``: the whole batch, as ``dice``).
        from_logits: whether ``predictions`` are logits.
        sample_weight: weights per example (needs ``axis``).
        reduction: ``"mean"``, ``"sum"`` or ``"none"``.

    >>> y, p = [[1.0, 1.0, 0.0, 0.0]], [[1.0, 0.0, 1.0, 1.0]]  # tp=1 fp=2 fn=1
    >>> round(float(tversky(y, p, alpha=0.3, beta=0.7)), 4)  # 1 - 1 / (1 + 0.6 + 0.7)
    0.5652
    """
    tp, fp, fn = _soft_overlap(
        "tversky", labels, predictions, axis, from_logits, sample_weight, reduction
    )
    index = tversky_index(tp, fp, fn, alpha, beta)
    return reduce_loss("tversky", 1.0 - index, sample_weight, reduction)
