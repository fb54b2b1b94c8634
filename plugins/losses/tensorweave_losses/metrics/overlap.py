"""Overlap of 0/1 masks and thresholded scores: the IoU and Dice metrics (segmentation; the
multi-class mean IoU is in ``mean_iou``, the Dice and Tversky losses in
``tensorweave_losses.losses.overlap``).

The counts are those of the losses, hard (``p`` thresholded) instead of soft: true positives
``tp``, false positives ``fp`` and false negatives ``fn``. The metrics accumulate them, so a
figure over many batches equals the figure over all of them at once.

>>> from tensorweave_losses.metrics.overlap import iou
>>> round(float(iou([[1.0, 1.0, 0.0]], [[0.9, 0.1, 0.8]])), 4)  # tp=1 fp=1 fn=1
0.3333
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

from tensorweave_losses.base import check_probabilities, paired, weights_like
from tensorweave_losses.losses.overlap import MASK_FIX, overlap_counts
from tensorweave_losses.metrics.classification import confusion_parts, f1_result
from tensorweave_losses.nodes import graph_function
from tensorweave_losses.streaming.accumulators import StreamingMetric, ratio
from tensorweave_losses.streaming.states import made, streams

__all__ = [
    "iou",
    "dice_coefficient",
    "overlap_parts",
    "iou_result",
    "StreamingIoU",
    "StreamingDice",
]


# -- metrics ------------------------------------------------------------------------------
def overlap_parts(
    name: str,
    labels: Any,
    predictions: Any,
    *,
    threshold: float | None = 0.5,
    sample_weight: Any = None,
    inclusive: bool = False,
) -> tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
    """Weighted (tp, fp, fn) over every entry: of scores thresholded at ``threshold``
    (positive above it as ``precision``/``recall``, or from it on with ``inclusive`` as
    ``keras.metrics.BinaryIoU``), or of probabilities as they are when ``threshold`` is
    ``None``."""
    if threshold is not None:
        return confusion_parts(
            labels,
            predictions,
            threshold=threshold,
            sample_weight=sample_weight,
            metric=name,
            inclusive=inclusive,
        )
    labels, predictions = paired(name, labels, predictions, MASK_FIX)
    check_probabilities(name, predictions)
    weights = None
    if sample_weight is not None:
        weights = tf.broadcast_to(weights_like(name, sample_weight, labels), tf.shape(labels))
    return overlap_counts(tf.cast(labels > 0.5, labels.dtype), predictions, weights=weights)


def iou_result(tp: tf.Tensor, fp: tf.Tensor, fn: tf.Tensor) -> tf.Tensor:
    """``tp / (tp + fp + fn)`` (0 for empty masks)."""
    return ratio(tp, tp + fp + fn)


@graph_function
def iou(
    labels: Any, predictions: Any, *, threshold: float | None = 0.5, sample_weight: Any = None
) -> tf.Tensor:
    """Intersection over union (Jaccard index) ``tp / (tp + fp + fn)`` of 0/1 masks against
    scores at or above ``threshold``, over every entry; as ``keras.metrics.BinaryIoU`` with
    ``target_class_ids=[1]``. ``threshold=None`` gives the soft IoU of probabilities.

    >>> float(iou([1.0, 1.0, 0.0, 0.0], [0.8, 0.3, 0.6, 0.1]))  # tp=1 fp=1 fn=1
    0.3333333432674408
    """
    return iou_result(
        *overlap_parts(
            "iou",
            labels,
            predictions,
            threshold=threshold,
            sample_weight=sample_weight,
            inclusive=True,
        )
    )


@graph_function
def dice_coefficient(
    labels: Any, predictions: Any, *, threshold: float | None = 0.5, sample_weight: Any = None
) -> tf.Tensor:
    """Dice coefficient ``2 tp / (2 tp + fp + fn)`` of 0/1 masks against scores above
    ``threshold`` (the F1 score of the entries); ``threshold=None`` gives the soft Dice
    ``2 sum(y p) / (sum(y) + sum(p))`` of probabilities, ``1 - dice`` loss pooled.

    >>> round(float(dice_coefficient([1.0, 1.0, 0.0], [0.9, 0.2, 0.7], threshold=None)), 4)
    0.5789
    """
    return f1_result(
        *overlap_parts(
            "dice", labels, predictions, threshold=threshold, sample_weight=sample_weight
        )
    )


# -- streaming states ---------------------------------------------------------------------
class StreamingIoU(StreamingMetric):
    """Running ``iou`` (accumulates tp, fp, fn)."""

    shapes = ((), (), ())
    metric = "iou"
    inclusive = True  # a score equal to the threshold is positive (keras.metrics.BinaryIoU)

    def __init__(self, threshold: float | None = 0.5, *, name: str | None = None) -> None:
        super().__init__(name=name)
        self.threshold = threshold

    def parts(
        self, labels: Any, predictions: Any, *, sample_weight: Any = None
    ) -> Sequence[tf.Tensor]:
        return overlap_parts(
            self.metric,
            labels,
            predictions,
            threshold=self.threshold,
            sample_weight=sample_weight,
            inclusive=self.inclusive,
        )

    def finish(self, *totals: tf.Tensor) -> tf.Tensor:
        return iou_result(*totals)


class StreamingDice(StreamingIoU):
    """Running ``dice_coefficient`` (accumulates tp, fp, fn)."""

    metric = "dice"
    inclusive = False  # above the threshold, as f1

    def finish(self, *totals: tf.Tensor) -> tf.Tensor:
        return f1_result(*totals)


streams(iou, made(StreamingIoU, "threshold"))
streams(dice_coefficient, made(StreamingDice, "threshold"))
