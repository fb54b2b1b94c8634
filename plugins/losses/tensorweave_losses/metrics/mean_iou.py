"""Mean intersection over union of class ids (multi-class segmentation), from the weighted
confusion matrix, as ``keras.metrics.MeanIoU`` (``keras.metrics.IoU`` for some classes).

The matrix is what a streaming state accumulates, so a figure over many batches equals the
figure over all of them at once.

>>> from tensorweave_losses.metrics.mean_iou import mean_iou
>>> round(float(mean_iou([0, 0, 1, 2], [0, 1, 1, 2], num_classes=3)), 4)  # (1/2 + 1/2 + 1) / 3
0.6667
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_losses.base import check_class_ids, weights_like
from tensorweave_losses.nodes import graph_function
from tensorweave_losses.streaming.accumulators import StreamingMetric, ratio
from tensorweave_losses.streaming.states import made, streams

__all__ = ["mean_iou", "confusion_matrix_parts", "mean_iou_result", "StreamingMeanIoU"]


def _class_ids(name: str, values: Any, num_classes: int, ignore_class: int | None) -> tf.Tensor:
    values = tf.convert_to_tensor(values)
    if values.dtype.is_floating:
        values = tf.cast(values, tf.int64)
    values = tf.cast(values, tf.int64)
    if ignore_class is not None:
        values = tf.where(tf.equal(values, ignore_class), tf.zeros_like(values), values)
    return check_class_ids(name, values, num_classes)


def confusion_matrix_parts(
    labels: Any,
    predictions: Any,
    *,
    num_classes: int,
    ignore_class: int | None = None,
    sample_weight: Any = None,
) -> tuple[tf.Tensor]:
    """The weighted confusion matrix ``[num_classes, num_classes]`` (rows: true class,
    columns: predicted class) of class ids against class scores (argmax) or class ids."""
    name = "mean_iou"
    predictions = tf.convert_to_tensor(predictions)
    labels = tf.convert_to_tensor(labels)
    if predictions.dtype.is_floating:
        predictions = tf.argmax(predictions, axis=-1)
    if labels.shape.rank == predictions.shape.rank + 1 and labels.shape[-1] == 1:
        labels = tf.squeeze(labels, -1)
    kept = tf.ones(tf.shape(labels), tf.float32)
    if ignore_class is not None:
        kept = tf.cast(tf.not_equal(tf.cast(labels, tf.int64), ignore_class), tf.float32)
    true = _class_ids(name, labels, num_classes, ignore_class)
    predicted = _class_ids(name, predictions, num_classes, None)
    if sample_weight is not None:
        kept = kept * tf.broadcast_to(weights_like(name, sample_weight, kept), tf.shape(kept))
    matrix = tf.math.confusion_matrix(
        tf.reshape(true, [-1]),
        tf.reshape(predicted, [-1]),
        num_classes=num_classes,
        weights=tf.reshape(kept, [-1]),
        dtype=tf.float32,
    )
    return (matrix,)


def mean_iou_result(matrix: tf.Tensor, target_class_ids: Sequence[int] | None = None) -> tf.Tensor:
    """The mean IoU over ``target_class_ids`` (every class when ``None``) that occur in the
    labels or the predictions; 0 when none does."""
    tp = tf.linalg.diag_part(matrix)
    union = tf.reduce_sum(matrix, 0) + tf.reduce_sum(matrix, 1) - tp
    if target_class_ids is not None:
        ids = tf.constant(list(target_class_ids), tf.int32)
        tp, union = tf.gather(tp, ids), tf.gather(union, ids)
    present = tf.reduce_sum(tf.cast(union > 0, matrix.dtype))
    return ratio(tf.reduce_sum(ratio(tp, union)), present)


def _check_classes(num_classes: int, target_class_ids: Sequence[int] | None) -> int:
    num_classes = tw.positive_int(num_classes, "num_classes", "mean_iou")
    for i in target_class_ids or ():
        if not 0 <= int(i) < num_classes:
            raise tw.ArgumentError(
                f"mean_iou: target class id {i} is not in [0, {num_classes}). Fix: give "
                "class ids below num_classes."
            )
    return num_classes


@graph_function
def mean_iou(
    labels: Any,
    predictions: Any,
    *,
    num_classes: int,
    target_class_ids: Sequence[int] | None = None,
    ignore_class: int | None = None,
    sample_weight: Any = None,
) -> tf.Tensor:
    """Mean over classes of the intersection over union, from the confusion matrix of class
    ids; as ``keras.metrics.MeanIoU`` (``keras.metrics.IoU`` with ``target_class_ids``).

    Args:
        labels: class ids ``[...]`` in ``[0, num_classes)``.
        predictions: class scores ``[..., num_classes]`` (the argmax is the predicted class)
            or integer class ids of the labels' shape.
        num_classes: the number of classes.
        target_class_ids: the classes averaged (default: all); a class that is neither in
            the labels nor predicted is left out of the mean.
        ignore_class: a label id left out (a "void" class such as 255).
        sample_weight: weights per example (or per entry).

    >>> float(mean_iou([0, 0, 1, 1], [0, 1, 1, 1], num_classes=2))  # (1/2 + 2/3) / 2
    0.5833333730697632
    """
    num_classes = _check_classes(num_classes, target_class_ids)
    (matrix,) = confusion_matrix_parts(
        labels,
        predictions,
        num_classes=num_classes,
        ignore_class=ignore_class,
        sample_weight=sample_weight,
    )
    return mean_iou_result(matrix, target_class_ids)


class StreamingMeanIoU(StreamingMetric):
    """Running ``mean_iou`` (accumulates the confusion matrix)."""

    def __init__(
        self,
        num_classes: int,
        target_class_ids: Sequence[int] | None = None,
        ignore_class: int | None = None,
        *,
        name: str | None = None,
    ) -> None:
        self.num_classes = _check_classes(num_classes, target_class_ids)
        self.target_class_ids = target_class_ids
        self.ignore_class = ignore_class
        super().__init__(name=name)

    def _shapes(self) -> Sequence[tuple[int, ...]]:
        return ((self.num_classes, self.num_classes),)

    def parts(
        self, labels: Any, predictions: Any, *, sample_weight: Any = None
    ) -> Sequence[tf.Tensor]:
        return confusion_matrix_parts(
            labels,
            predictions,
            num_classes=self.num_classes,
            ignore_class=self.ignore_class,
            sample_weight=sample_weight,
        )

    def finish(self, *totals: tf.Tensor) -> tf.Tensor:
        return mean_iou_result(totals[0], self.target_class_ids)


streams(mean_iou, made(StreamingMeanIoU, "num_classes", "target_class_ids", "ignore_class"))
