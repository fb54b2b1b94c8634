"""Confusion counts of 0/1 labels against scores at one or several thresholds: true and false
positives and negatives, and the per-threshold histogram they (and the AUC and the
precision/recall trade-offs) are read from.

A score counts as positive at threshold ``t`` when it is above ``t`` (as Keras). Each entry
falls in one bucket between sorted thresholds, so the counts at every threshold come from
two histograms (weighted positives and negatives per bucket) in one pass, in fixed memory:
what a streaming metric accumulates.

>>> from tensorweave_losses.metrics.counts import true_positives, false_positives
>>> float(true_positives([1, 1, 0, 0], [0.9, 0.4, 0.6, 0.1]))
1.0
>>> false_positives([1, 1, 0, 0], [0.9, 0.4, 0.6, 0.1], thresholds=[0.3, 0.5, 0.7]).numpy()
array([1., 1., 0.], dtype=float32)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw
from tensorweave_losses.base import paired, weights_like
from tensorweave_losses.nodes import graph_function
from tensorweave_losses.streaming.accumulators import StreamingMetric
from tensorweave_losses.streaming.states import Maker, streams

__all__ = [
    "true_positives",
    "false_positives",
    "true_negatives",
    "false_negatives",
    "binary_entries",
    "threshold_histogram",
    "counts_above",
    "count_parts",
    "count_result",
    "StreamingCount",
]

Thresholds = float | Sequence[float]
COUNTS = ("true_positives", "false_positives", "true_negatives", "false_negatives")


def binary_entries(
    name: str, labels: Any, predictions: Any, sample_weight: Any = None, class_id: int | None = None
) -> tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
    """Per entry, flat: (positive weight, negative weight, score) of 0/1 labels (> 0.5 is
    positive) against scores, ``sample_weight`` broadcast to the entries; ``class_id`` keeps
    one column of the last axis."""
    labels, predictions = paired(name, labels, predictions, "give one 0/1 label per score.")
    positive = tf.cast(labels > 0.5, tf.float32)
    if sample_weight is None:
        w = tf.ones_like(positive)
    else:
        w = tf.broadcast_to(weights_like(name, sample_weight, positive), tf.shape(positive))
    scores = tf.cast(predictions, tf.float32)
    if class_id is not None:
        positive, w, scores = positive[..., class_id], w[..., class_id], scores[..., class_id]
    positive, w, scores = (tf.reshape(t, [-1]) for t in (positive, w, scores))
    return positive * w, (1.0 - positive) * w, scores


def threshold_histogram(
    name: str,
    labels: Any,
    predictions: Any,
    thresholds: Sequence[float],
    *,
    sample_weight: Any = None,
    class_id: int | None = None,
) -> tuple[tf.Tensor, tf.Tensor]:
    """Weighted positives and negatives per bucket between the sorted ``thresholds``
    (``[len(thresholds) + 1]`` each): bucket ``i`` holds the scores above exactly ``i``
    thresholds."""
    pos_w, neg_w, scores = binary_entries(name, labels, predictions, sample_weight, class_id)
    edges = tf.constant(thresholds, tf.float32)
    bucket = tf.searchsorted(edges, scores, side="left")  # how many thresholds are below
    size = len(thresholds) + 1
    return (
        tf.math.unsorted_segment_sum(pos_w, bucket, size),
        tf.math.unsorted_segment_sum(neg_w, bucket, size),
    )


def counts_above(
    positives: tf.Tensor, negatives: tf.Tensor
) -> tuple[tf.Tensor, tf.Tensor, tf.Tensor, tf.Tensor]:
    """(tp, fp, tn, fn) at each threshold (``[len(thresholds)]``) from the histograms."""
    tp = tf.cumsum(positives, reverse=True, exclusive=True)[:-1]
    fp = tf.cumsum(negatives, reverse=True, exclusive=True)[:-1]
    return tp, fp, tf.reduce_sum(negatives) - fp, tf.reduce_sum(positives) - tp


def _sorted(name: str, thresholds: Thresholds) -> tuple[list[float], np.ndarray, bool]:
    """(sorted thresholds, each given threshold's place among them, whether one was given)."""
    single = np.ndim(thresholds) == 0
    values = np.atleast_1d(np.asarray(thresholds, np.float32))
    if values.ndim != 1 or values.size == 0 or not np.all(np.isfinite(values)):
        raise tw.ArgumentError(
            f"{name}: thresholds must be a number or a non-empty list of numbers, got "
            f"{thresholds!r}. Fix: thresholds=0.5 or thresholds=[0.3, 0.5, 0.7]."
        )
    order = np.argsort(values, kind="stable")
    return values[order].tolist(), np.argsort(order), single


def _count(
    which: str, labels: Any, predictions: Any, thresholds: Thresholds, sample_weight: Any
) -> tf.Tensor:
    (total,) = count_parts(which, labels, predictions, thresholds, sample_weight)
    return count_result(which, thresholds, total)


def count_parts(
    which: str, labels: Any, predictions: Any, thresholds: Thresholds, sample_weight: Any
) -> tuple[tf.Tensor]:
    """One count (``which`` of ``COUNTS``) at each threshold, in sorted order."""
    edges, _, _ = _sorted(which, thresholds)
    histograms = threshold_histogram(which, labels, predictions, edges, sample_weight=sample_weight)
    return (counts_above(*histograms)[COUNTS.index(which)],)


def count_result(which: str, thresholds: Thresholds, total: tf.Tensor) -> tf.Tensor:
    """The counts in the order the thresholds were given (a scalar for one threshold)."""
    _, place, single = _sorted(which, thresholds)
    counts = tf.gather(total, place)
    return counts[0] if single else counts


@graph_function
def true_positives(
    labels: Any, predictions: Any, *, thresholds: Thresholds = 0.5, sample_weight: Any = None
) -> tf.Tensor:
    """Weighted count of positive entries scored above each threshold, as
    ``keras.metrics.TruePositives``: a scalar for one threshold, a vector for a list.

    >>> true_positives([1, 1, 0], [0.9, 0.4, 0.6], thresholds=[0.3, 0.5]).numpy()
    array([2., 1.], dtype=float32)"""
    return _count("true_positives", labels, predictions, thresholds, sample_weight)


@graph_function
def false_positives(
    labels: Any, predictions: Any, *, thresholds: Thresholds = 0.5, sample_weight: Any = None
) -> tf.Tensor:
    """Weighted count of negative entries scored above each threshold, as
    ``keras.metrics.FalsePositives``.

    >>> float(false_positives([1, 0, 0], [0.9, 0.4, 0.6], sample_weight=[1.0, 1.0, 2.0]))
    2.0"""
    return _count("false_positives", labels, predictions, thresholds, sample_weight)


@graph_function
def true_negatives(
    labels: Any, predictions: Any, *, thresholds: Thresholds = 0.5, sample_weight: Any = None
) -> tf.Tensor:
    """Weighted count of negative entries scored at or below each threshold, as
    ``keras.metrics.TrueNegatives``.

    >>> float(true_negatives([1, 0, 0], [0.9, 0.4, 0.6]))
    1.0"""
    return _count("true_negatives", labels, predictions, thresholds, sample_weight)


@graph_function
def false_negatives(
    labels: Any, predictions: Any, *, thresholds: Thresholds = 0.5, sample_weight: Any = None
) -> tf.Tensor:
    """Weighted count of positive entries scored at or below each threshold, as
    ``keras.metrics.FalseNegatives``.

    >>> float(false_negatives([1, 1, 0], [0.9, 0.4, 0.6]))
    1.0"""
    return _count("false_negatives", labels, predictions, thresholds, sample_weight)


class StreamingCount(StreamingMetric):
    """Running count ``which`` (one of ``COUNTS``) at ``thresholds``."""

    def __init__(
        self, which: str, thresholds: Thresholds = 0.5, *, name: str | None = None
    ) -> None:
        self.which = which
        self.thresholds = thresholds
        self.size = len(_sorted(which, thresholds)[0])
        super().__init__(name=name or which)

    def _shapes(self) -> Sequence[tuple[int, ...]]:
        return ((self.size,),)

    def parts(
        self, labels: Any, predictions: Any, *, sample_weight: Any = None
    ) -> Sequence[tf.Tensor]:
        return count_parts(self.which, labels, predictions, self.thresholds, sample_weight)

    def finish(self, *totals: tf.Tensor) -> tf.Tensor:
        return count_result(self.which, self.thresholds, totals[0])


def count_state(which: str) -> tuple[Maker, tuple[str, ...]]:
    """(make the ``StreamingCount`` of ``which`` from a node's ``thresholds``, its options)."""
    return (lambda opts, shapes: StreamingCount(which, **opts)), ("thresholds",)


streams(true_positives, count_state("true_positives"))
streams(false_positives, count_state("false_positives"))
streams(true_negatives, count_state("true_negatives"))
streams(false_negatives, count_state("false_negatives"))
