"""Classification metrics: accuracy (one-hot, sparse, binary), top-k accuracy, precision,
recall and F1.

Each metric is a function of a batch (weighted by ``sample_weight``) and is built from
``*_parts`` functions returning the sums its streaming state (``StreamingAccuracy`` ...,
registered as ``streaming_<metric>.v1``) accumulates, so the state over several batches
equals the function on all of them.

>>> from tensorweave_losses.metrics.classification import sparse_accuracy, f1
>>> float(sparse_accuracy([0, 1], [[0.9, 0.1], [0.8, 0.2]]))
0.5
>>> round(float(f1([1, 1, 0, 0], [0.9, 0.2, 0.7, 0.1])), 4)  # tp=1 fp=1 fn=1
0.5
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

from tensorweave_losses.base import (
    align_labels,
    check_class_ids,
    check_shapes,
    float_tensor,
    weights_like,
)
from tensorweave_losses.nodes import graph_function
from tensorweave_losses.streaming.accumulators import StreamingMetric, ratio
from tensorweave_losses.streaming.states import made, streams

__all__ = [
    "accuracy",
    "sparse_accuracy",
    "binary_accuracy",
    "top_k_accuracy",
    "precision",
    "recall",
    "f1",
    "ratio",
    "accuracy_parts",
    "sparse_accuracy_parts",
    "binary_accuracy_parts",
    "top_k_accuracy_parts",
    "confusion_parts",
    "precision_result",
    "recall_result",
    "f1_result",
    "StreamingAccuracy",
    "StreamingSparseAccuracy",
    "StreamingBinaryAccuracy",
    "StreamingTopKAccuracy",
    "StreamingPrecision",
    "StreamingRecall",
    "StreamingF1",
]


def _weighted(name: str, hits: tf.Tensor, sample_weight: Any) -> tuple[tf.Tensor, tf.Tensor]:
    hits = tf.cast(hits, tf.float32)
    if sample_weight is None:
        return tf.reduce_sum(hits), tf.cast(tf.size(hits), tf.float32)
    w = tf.broadcast_to(weights_like(name, sample_weight, hits), tf.shape(hits))
    return tf.reduce_sum(hits * w), tf.reduce_sum(w)


def accuracy_parts(
    labels: Any, predictions: Any, *, sample_weight: Any = None
) -> tuple[tf.Tensor, tf.Tensor]:
    """(weighted hits, weight) of one-hot labels against class scores."""
    predictions = float_tensor(predictions)
    labels = tf.convert_to_tensor(labels)
    check_shapes(
        "accuracy",
        labels,
        predictions,
        "one-hot labels need the predictions' shape; for class ids use sparse_accuracy.v1.",
    )
    hits = tf.equal(tf.argmax(labels, axis=-1), tf.argmax(predictions, axis=-1))
    return _weighted("accuracy", hits, sample_weight)


def sparse_accuracy_parts(
    labels: Any, predictions: Any, *, sample_weight: Any = None
) -> tuple[tf.Tensor, tf.Tensor]:
    """(weighted hits, weight) of class ids against class scores."""
    predictions = float_tensor(predictions)
    labels = _class_ids("sparse_accuracy", labels, predictions)
    hits = tf.equal(labels, tf.argmax(predictions, axis=-1))
    return _weighted("sparse_accuracy", hits, sample_weight)


def binary_accuracy_parts(
    labels: Any, predictions: Any, *, threshold: float = 0.5, sample_weight: Any = None
) -> tuple[tf.Tensor, tf.Tensor]:
    """(weighted hits, weight) of 0/1 labels against scores thresholded at ``threshold``."""
    predictions = float_tensor(predictions)
    labels = align_labels(tf.cast(tf.convert_to_tensor(labels), predictions.dtype), predictions)
    check_shapes("binary_accuracy", labels, predictions, "give one 0/1 label per prediction.")
    hits = tf.equal(labels > 0.5, predictions > threshold)
    return _weighted("binary_accuracy", hits, sample_weight)


def top_k_accuracy_parts(
    labels: Any, predictions: Any, *, k: int = 5, sample_weight: Any = None
) -> tuple[tf.Tensor, tf.Tensor]:
    """(weighted hits, weight): whether the true class id is among the ``k`` top scores."""
    predictions = float_tensor(predictions)
    labels = _class_ids("top_k_accuracy", labels, predictions)
    flat_scores = tf.reshape(predictions, [-1, tf.shape(predictions)[-1]])
    hits = tf.math.in_top_k(tf.reshape(labels, [-1]), flat_scores, k=k)
    hits = tf.reshape(hits, tf.shape(labels))
    return _weighted("top_k_accuracy", hits, sample_weight)


def _class_ids(name: str, labels: Any, predictions: tf.Tensor) -> tf.Tensor:
    labels = tf.convert_to_tensor(labels)
    if labels.dtype.is_floating:
        labels = tf.cast(labels, tf.int64)
    if labels.shape.rank == predictions.shape.rank and labels.shape[-1] == 1:
        labels = tf.squeeze(labels, -1)
    check_shapes(
        name,
        labels,
        predictions,
        "give one class id per example; for one-hot labels use accuracy.v1.",
        drop_last=True,
    )
    return tf.cast(check_class_ids(name, labels, predictions.shape[-1]), tf.int64)


def confusion_parts(
    labels: Any,
    predictions: Any,
    *,
    threshold: float = 0.5,
    sample_weight: Any = None,
    metric: str = "precision/recall/f1",
    inclusive: bool = False,
) -> tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
    """Weighted (true positives, false positives, false negatives), element-wise over all
    entries of 0/1 labels and scores thresholded at ``threshold`` (as Keras): a score is
    positive above it, or from it on with ``inclusive`` (Keras's IoU metrics)."""
    predictions = float_tensor(predictions)
    labels = align_labels(tf.cast(tf.convert_to_tensor(labels), predictions.dtype), predictions)
    check_shapes(metric, labels, predictions, "give one 0/1 label per prediction.")
    positive = tf.cast(labels > 0.5, tf.float32)
    above = predictions >= threshold if inclusive else predictions > threshold
    predicted = tf.cast(above, tf.float32)
    w = tf.ones_like(positive)
    if sample_weight is not None:
        w = tf.broadcast_to(weights_like(metric, sample_weight, positive), tf.shape(positive))
    tp = tf.reduce_sum(w * positive * predicted)
    fp = tf.reduce_sum(w * (1.0 - positive) * predicted)
    fn = tf.reduce_sum(w * positive * (1.0 - predicted))
    return tp, fp, fn


def precision_result(tp: tf.Tensor, fp: tf.Tensor, fn: tf.Tensor) -> tf.Tensor:
    """``tp / (tp + fp)`` (0 with no predicted positives)."""
    return ratio(tp, tp + fp)


def recall_result(tp: tf.Tensor, fp: tf.Tensor, fn: tf.Tensor) -> tf.Tensor:
    """``tp / (tp + fn)`` (0 with no positives)."""
    return ratio(tp, tp + fn)


def f1_result(tp: tf.Tensor, fp: tf.Tensor, fn: tf.Tensor) -> tf.Tensor:
    """``2 tp / (2 tp + fp + fn)``, the harmonic mean of precision and recall."""
    return ratio(2.0 * tp, 2.0 * tp + fp + fn)


@graph_function
def accuracy(labels: Any, predictions: Any, *, sample_weight: Any = None) -> tf.Tensor:
    """Fraction of examples whose top-scoring class is the one-hot label's class.

    >>> float(accuracy([[0, 1], [1, 0]], [[0.2, 0.8], [0.3, 0.7]]))
    0.5
    """
    return ratio(*accuracy_parts(labels, predictions, sample_weight=sample_weight))


@graph_function
def sparse_accuracy(labels: Any, predictions: Any, *, sample_weight: Any = None) -> tf.Tensor:
    """Fraction of examples whose top-scoring class is the class id ``labels``."""
    return ratio(*sparse_accuracy_parts(labels, predictions, sample_weight=sample_weight))


@graph_function
def binary_accuracy(
    labels: Any, predictions: Any, *, threshold: float = 0.5, sample_weight: Any = None
) -> tf.Tensor:
    """Fraction of entries where ``predictions > threshold`` matches the 0/1 label."""
    return ratio(
        *binary_accuracy_parts(
            labels, predictions, threshold=threshold, sample_weight=sample_weight
        )
    )


@graph_function
def top_k_accuracy(
    labels: Any, predictions: Any, *, k: int = 5, sample_weight: Any = None
) -> tf.Tensor:
    """Fraction of examples whose class id is among the ``k`` highest scores.

    >>> float(top_k_accuracy([2], [[0.5, 0.1, 0.4]], k=2))
    1.0
    """
    return ratio(*top_k_accuracy_parts(labels, predictions, k=k, sample_weight=sample_weight))


@graph_function
def precision(
    labels: Any, predictions: Any, *, threshold: float = 0.5, sample_weight: Any = None
) -> tf.Tensor:
    """Precision ``tp / (tp + fp)`` of 0/1 labels against thresholded scores."""
    return precision_result(
        *confusion_parts(
            labels,
            predictions,
            threshold=threshold,
            sample_weight=sample_weight,
            metric="precision",
        )
    )


@graph_function
def recall(
    labels: Any, predictions: Any, *, threshold: float = 0.5, sample_weight: Any = None
) -> tf.Tensor:
    """Recall ``tp / (tp + fn)`` of 0/1 labels against thresholded scores."""
    return recall_result(
        *confusion_parts(
            labels, predictions, threshold=threshold, sample_weight=sample_weight, metric="recall"
        )
    )


@graph_function
def f1(
    labels: Any, predictions: Any, *, threshold: float = 0.5, sample_weight: Any = None
) -> tf.Tensor:
    """F1 score ``2 tp / (2 tp + fp + fn)`` of 0/1 labels against thresholded scores."""
    return f1_result(
        *confusion_parts(
            labels, predictions, threshold=threshold, sample_weight=sample_weight, metric="f1"
        )
    )


# -- streaming states ---------------------------------------------------------------------
class StreamingAccuracy(StreamingMetric):
    """Running accuracy of one-hot labels: ``update(labels, predictions, sample_weight=None)``."""

    def parts(
        self, labels: Any, predictions: Any, *, sample_weight: Any = None
    ) -> Sequence[tf.Tensor]:
        return accuracy_parts(labels, predictions, sample_weight=sample_weight)


class StreamingSparseAccuracy(StreamingMetric):
    """Running accuracy of class ids: ``update(labels, predictions, sample_weight=None)``."""

    def parts(
        self, labels: Any, predictions: Any, *, sample_weight: Any = None
    ) -> Sequence[tf.Tensor]:
        return sparse_accuracy_parts(labels, predictions, sample_weight=sample_weight)


class StreamingBinaryAccuracy(StreamingMetric):
    """Running binary accuracy at ``threshold``."""

    def __init__(self, threshold: float = 0.5, *, name: str | None = None) -> None:
        super().__init__(name=name)
        self.threshold = threshold

    def parts(
        self, labels: Any, predictions: Any, *, sample_weight: Any = None
    ) -> Sequence[tf.Tensor]:
        return binary_accuracy_parts(
            labels, predictions, threshold=self.threshold, sample_weight=sample_weight
        )


class StreamingTopKAccuracy(StreamingMetric):
    """Running top-``k`` accuracy of class ids."""

    def __init__(self, k: int = 5, *, name: str | None = None) -> None:
        super().__init__(name=name)
        self.k = k

    def parts(
        self, labels: Any, predictions: Any, *, sample_weight: Any = None
    ) -> Sequence[tf.Tensor]:
        return top_k_accuracy_parts(labels, predictions, k=self.k, sample_weight=sample_weight)


class _Confusion(StreamingMetric):
    shapes = ((), (), ())

    def __init__(self, threshold: float = 0.5, *, name: str | None = None) -> None:
        super().__init__(name=name)
        self.threshold = threshold

    def parts(
        self, labels: Any, predictions: Any, *, sample_weight: Any = None
    ) -> Sequence[tf.Tensor]:
        return confusion_parts(
            labels, predictions, threshold=self.threshold, sample_weight=sample_weight
        )


class StreamingPrecision(_Confusion):
    """Running precision at ``threshold`` (accumulates tp, fp, fn)."""

    def finish(self, *totals: tf.Tensor) -> tf.Tensor:
        return precision_result(*totals)


class StreamingRecall(_Confusion):
    """Running recall at ``threshold`` (accumulates tp, fp, fn)."""

    def finish(self, *totals: tf.Tensor) -> tf.Tensor:
        return recall_result(*totals)


class StreamingF1(_Confusion):
    """Running F1 at ``threshold`` (accumulates tp, fp, fn)."""

    def finish(self, *totals: tf.Tensor) -> tf.Tensor:
        return f1_result(*totals)


streams(accuracy, made(StreamingAccuracy))
streams(sparse_accuracy, made(StreamingSparseAccuracy))
streams(binary_accuracy, made(StreamingBinaryAccuracy, "threshold"))
streams(top_k_accuracy, made(StreamingTopKAccuracy, "k"))
streams(precision, made(StreamingPrecision, "threshold"))
streams(recall, made(StreamingRecall, "threshold"))
streams(f1, made(StreamingF1, "threshold"))
