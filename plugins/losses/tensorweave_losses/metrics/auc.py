"""Area under the ROC curve: exact (rank-based) or from a histogram over fixed thresholds.

The exact AUC is the probability that a random positive scores above a random negative
(ties count half), computed by sorting. With ``num_thresholds`` the scores are bucketed
(like ``keras.metrics.AUC``), which is what a streaming AUC can accumulate in fixed memory.

>>> from tensorweave_losses.metrics.auc import auc
>>> float(auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]))
0.75
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

from tensorweave_losses.metrics.counts import binary_entries, counts_above, threshold_histogram
from tensorweave_losses.nodes import graph_function
from tensorweave_losses.streaming.accumulators import StreamingMetric
from tensorweave_losses.streaming.states import Shapes, streams

__all__ = [
    "auc",
    "thresholds",
    "histogram_parts",
    "histogram_result",
    "exact_parts",
    "exact_result",
    "StreamingAUC",
    "StreamingExactAUC",
    "auc_state",
]


def exact_parts(
    labels: Any, predictions: Any, *, sample_weight: Any = None
) -> tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
    """Per entry: (positive weight, negative weight, score), flat; what the exact AUC of
    several batches needs (their concatenation)."""
    return binary_entries("auc", labels, predictions, sample_weight)


def thresholds(num_thresholds: int) -> list[float]:
    """Keras' thresholds: ``-eps``, evenly spaced inner points, ``1 + eps``."""
    if num_thresholds < 2:
        raise ValueError(f"auc: num_thresholds must be >= 2, got {num_thresholds}.")
    inner = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return [-1e-7, *inner, 1.0 + 1e-7]


def histogram_parts(
    labels: Any, predictions: Any, *, num_thresholds: int = 200, sample_weight: Any = None
) -> tuple[tf.Tensor, tf.Tensor]:
    """Weighted positives and negatives per score bucket (``[num_thresholds + 1]`` each)."""
    return threshold_histogram(
        "auc", labels, predictions, thresholds(num_thresholds), sample_weight=sample_weight
    )


def histogram_result(positives: tf.Tensor, negatives: tf.Tensor) -> tf.Tensor:
    """Trapezoidal ROC AUC from per-bucket positives and negatives (Keras' interpolation)."""
    tp, fp, _, _ = counts_above(positives, negatives)
    tpr = tf.math.divide_no_nan(tp, tf.reduce_sum(positives))
    fpr = tf.math.divide_no_nan(fp, tf.reduce_sum(negatives))
    return tf.reduce_sum((fpr[:-1] - fpr[1:]) * (tpr[:-1] + tpr[1:]) / 2.0)


def _exact(labels: Any, predictions: Any, sample_weight: Any) -> tf.Tensor:
    return exact_result(*binary_entries("auc", labels, predictions, sample_weight))


def exact_result(pos_w: tf.Tensor, neg_w: tf.Tensor, scores: tf.Tensor) -> tf.Tensor:
    """The rank-based (exact) ROC AUC from ``exact_parts`` (of one batch or several)."""
    order = tf.argsort(scores)
    sorted_scores = tf.gather(scores, order)
    _, group = tf.unique(sorted_scores)
    n_groups = tf.size(scores)  # an upper bound: unused segments stay zero
    pos = tf.math.unsorted_segment_sum(tf.gather(pos_w, order), group, n_groups)
    neg = tf.math.unsorted_segment_sum(tf.gather(neg_w, order), group, n_groups)
    below = tf.cumsum(neg, exclusive=True)
    wins = tf.reduce_sum(pos * (below + 0.5 * neg))
    return tf.math.divide_no_nan(wins, tf.reduce_sum(pos) * tf.reduce_sum(neg))


@graph_function
def auc(
    labels: Any,
    predictions: Any,
    *,
    num_thresholds: int | None = None,
    sample_weight: Any = None,
) -> tf.Tensor:
    """ROC AUC of 0/1 labels against scores (all entries pooled).

    Args:
        labels: 0/1 labels, shaped like ``predictions``.
        predictions: scores; with ``num_thresholds`` they must be probabilities in [0, 1].
        num_thresholds: ``None`` for the exact AUC, else the bucketed estimate with this
            many thresholds (matching ``keras.metrics.AUC``).
        sample_weight: weights per entry (broadcast to the predictions).

    Returns 0 when there are no positives or no negatives.
    """
    if num_thresholds is None:
        return _exact(labels, predictions, sample_weight)
    return histogram_result(
        *histogram_parts(
            labels, predictions, num_thresholds=num_thresholds, sample_weight=sample_weight
        )
    )


# -- streaming states ---------------------------------------------------------------------
class StreamingAUC(StreamingMetric):
    """Running ROC AUC from score histograms over ``num_thresholds`` thresholds; equals
    ``auc(..., num_thresholds=n)`` on all batches and ``keras.metrics.AUC(n)``."""

    def __init__(self, num_thresholds: int = 200, *, name: str | None = None) -> None:
        self.num_thresholds = int(num_thresholds)
        super().__init__(name=name)

    def _shapes(self) -> Sequence[tuple[int, ...]]:
        return ((self.num_thresholds + 1,), (self.num_thresholds + 1,))

    def parts(
        self, labels: Any, predictions: Any, *, sample_weight: Any = None
    ) -> Sequence[tf.Tensor]:
        return histogram_parts(
            labels, predictions, num_thresholds=self.num_thresholds, sample_weight=sample_weight
        )

    def finish(self, *totals: tf.Tensor) -> tf.Tensor:
        return histogram_result(*totals)


class StreamingExactAUC(StreamingMetric):
    """Running exact (rank-based) ROC AUC: keeps every score with its weights (memory grows
    with the data), so the result equals ``auc(...)`` on all batches at once.

    >>> metric = StreamingExactAUC()
    >>> _ = metric.update([0, 1], [0.1, 0.35]); _ = metric.update([0, 1], [0.4, 0.8])
    >>> float(metric.result())
    0.75
    """

    jit_compatible = False  # its accumulators grow with every batch

    def __init__(self, *, name: str | None = None) -> None:
        tf.Module.__init__(self, name=name or "streaming_exact_auc")
        self.totals = [
            tf.Variable(
                tf.zeros([0], tf.float32),
                shape=tf.TensorShape([None]),
                trainable=False,
                name=f"entries_{i}",
            )
            for i in range(3)
        ]

    def parts(
        self, labels: Any, predictions: Any, *, sample_weight: Any = None
    ) -> Sequence[tf.Tensor]:
        return exact_parts(labels, predictions, sample_weight=sample_weight)

    def accumulate(self, *args: Any, **kwargs: Any) -> None:
        for variable, part in zip(self.totals, self.parts(*args, **kwargs), strict=True):
            variable.assign(tf.concat([variable, tf.cast(part, variable.dtype)], 0))

    def finish(self, *totals: tf.Tensor) -> tf.Tensor:
        return exact_result(*totals)

    def reset(self) -> None:
        for variable in self.totals:
            variable.assign(tf.zeros([0], variable.dtype))

    reset_state = reset


def auc_state(opts: dict[str, Any], shapes: Shapes) -> StreamingMetric:
    """The streaming state of an ``auc`` node: exact without ``num_thresholds``."""
    n = opts.get("num_thresholds")
    return StreamingExactAUC() if n is None else StreamingAUC(int(n))


streams(auc, (auc_state, ("num_thresholds",)))
