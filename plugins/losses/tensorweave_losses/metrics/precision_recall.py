"""Operating points of a scorer: the best precision at a required recall, and the best recall
at a required precision, searched over evenly spaced thresholds (as Keras's
``PrecisionAtRecall`` and ``RecallAtPrecision``).

The counts at every threshold come from two score histograms (``counts``), so a figure over
many batches equals the figure over all of them at once.

>>> from tensorweave_losses.metrics.precision_recall import precision_at_recall, recall_at_precision
>>> labels, scores = [0, 0, 1, 1, 1], [0.1, 0.6, 0.35, 0.8, 0.9]
>>> float(precision_at_recall(labels, scores, recall=1.0))  # cut below 0.35: 3 of 4
0.75
>>> round(float(recall_at_precision(labels, scores, precision=1.0)), 4)  # cut above 0.6
0.6667
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_losses.metrics.counts import counts_above, threshold_histogram
from tensorweave_losses.nodes import graph_function
from tensorweave_losses.streaming.accumulators import StreamingMetric, ratio
from tensorweave_losses.streaming.states import Maker, Shapes, streams

__all__ = [
    "precision_at_recall",
    "recall_at_precision",
    "grid",
    "curve_parts",
    "best_under_constraint",
    "StreamingPrecisionAtRecall",
    "StreamingRecallAtPrecision",
]


def grid(num_thresholds: int, name: str) -> list[float]:
    """Keras's thresholds: 0, ``num_thresholds - 2`` evenly spaced inner points, 1 (0.5 alone
    for one threshold)."""
    n = tw.positive_int(num_thresholds, "num_thresholds", name)
    if n == 1:
        return [0.5]
    return [0.0, *[(i + 1) / (n - 1) for i in range(n - 2)], 1.0]


def _check_target(name: str, option: str, value: float) -> float:
    if not 0.0 <= float(value) <= 1.0:
        raise tw.ArgumentError(
            f"{name}: {option} must be in [0, 1], got {value!r}. Fix: give the {option} the "
            f"operating point must reach, e.g. {option}=0.9."
        )
    return float(value)


def curve_parts(
    name: str,
    labels: Any,
    predictions: Any,
    *,
    num_thresholds: int = 200,
    class_id: int | None = None,
    sample_weight: Any = None,
) -> tuple[tf.Tensor, tf.Tensor]:
    """The weighted positives and negatives per bucket of the threshold grid."""
    return threshold_histogram(
        name,
        labels,
        predictions,
        grid(num_thresholds, name),
        sample_weight=sample_weight,
        class_id=class_id,
    )


def best_under_constraint(
    positives: tf.Tensor, negatives: tf.Tensor, *, need: str, value: float
) -> tf.Tensor:
    """The best precision over the thresholds whose recall is >= ``value`` (``need=
    "recall"``), or the best recall where precision is >= ``value`` (``need="precision"``);
    0 when no threshold qualifies."""
    tp, fp, _, fn = counts_above(positives, negatives)
    precisions, recalls = ratio(tp, tp + fp), ratio(tp, tp + fn)
    constrained, best = (recalls, precisions) if need == "recall" else (precisions, recalls)
    feasible = constrained >= value
    return tf.reduce_max(tf.concat([tf.where(feasible, best, 0.0), [0.0]], 0))


def _operating_point(
    name: str,
    labels: Any,
    predictions: Any,
    value: float,
    num_thresholds: int,
    class_id: int | None,
    sample_weight: Any,
) -> tf.Tensor:
    need = "recall" if name == "precision_at_recall" else "precision"
    target = _check_target(name, need, value)
    parts = curve_parts(
        name,
        labels,
        predictions,
        num_thresholds=num_thresholds,
        class_id=class_id,
        sample_weight=sample_weight,
    )
    return best_under_constraint(*parts, need=need, value=target)


@graph_function
def precision_at_recall(
    labels: Any,
    predictions: Any,
    *,
    recall: float,
    num_thresholds: int = 200,
    class_id: int | None = None,
    sample_weight: Any = None,
) -> tf.Tensor:
    """The highest precision over thresholds where the recall is at least ``recall``, as
    ``keras.metrics.PrecisionAtRecall``.

    Args:
        labels: 0/1 labels, the shape of ``predictions``.
        predictions: scores in [0, 1] (probabilities).
        recall: the recall the operating point must reach, in [0, 1].
        num_thresholds: how many evenly spaced thresholds in [0, 1] are tried.
        class_id: score only this column of the last axis (one class of a multi-label
            output).
        sample_weight: weights per example (or per entry).

    >>> float(precision_at_recall([0, 1, 1, 0], [0.2, 0.7, 0.4, 0.5], recall=1.0))  # cut < 0.4
    0.6666666865348816
    """
    return _operating_point(
        "precision_at_recall", labels, predictions, recall, num_thresholds, class_id, sample_weight
    )


@graph_function
def recall_at_precision(
    labels: Any,
    predictions: Any,
    *,
    precision: float,
    num_thresholds: int = 200,
    class_id: int | None = None,
    sample_weight: Any = None,
) -> tf.Tensor:
    """The highest recall over thresholds where the precision is at least ``precision``, as
    ``keras.metrics.RecallAtPrecision`` (arguments as ``precision_at_recall``).

    >>> float(recall_at_precision([0, 1, 1, 0], [0.2, 0.7, 0.4, 0.5], precision=1.0))  # cut > 0.5
    0.5"""
    return _operating_point(
        "recall_at_precision",
        labels,
        predictions,
        precision,
        num_thresholds,
        class_id,
        sample_weight,
    )


class StreamingPrecisionAtRecall(StreamingMetric):
    """Running ``precision_at_recall`` (accumulates the score histograms)."""

    metric = "precision_at_recall"
    need = "recall"

    def __init__(
        self,
        value: float,
        num_thresholds: int = 200,
        class_id: int | None = None,
        *,
        name: str | None = None,
    ) -> None:
        self.value = _check_target(self.metric, self.need, value)
        self.num_thresholds = len(grid(num_thresholds, self.metric))
        self.class_id = class_id
        super().__init__(name=name or self.metric)

    def _shapes(self) -> Sequence[tuple[int, ...]]:
        return ((self.num_thresholds + 1,), (self.num_thresholds + 1,))

    def parts(
        self, labels: Any, predictions: Any, *, sample_weight: Any = None
    ) -> Sequence[tf.Tensor]:
        return curve_parts(
            self.metric,
            labels,
            predictions,
            num_thresholds=self.num_thresholds,
            class_id=self.class_id,
            sample_weight=sample_weight,
        )

    def finish(self, *totals: tf.Tensor) -> tf.Tensor:
        return best_under_constraint(*totals, need=self.need, value=self.value)


class StreamingRecallAtPrecision(StreamingPrecisionAtRecall):
    """Running ``recall_at_precision`` (accumulates the score histograms)."""

    metric = "recall_at_precision"
    need = "precision"


def operating_point_state(
    cls: type[StreamingPrecisionAtRecall], target: str
) -> tuple[Maker, tuple[str, ...]]:
    """(make ``cls(target value, ...)`` from a node's options, the options it takes)."""
    keys = (target, "num_thresholds", "class_id")

    def make(opts: dict[str, Any], shapes: Shapes) -> StreamingMetric:
        rest = {k: opts[k] for k in keys[1:] if k in opts}
        return cls(opts[target], **rest)

    return make, keys


streams(precision_at_recall, operating_point_state(StreamingPrecisionAtRecall, "recall"))
streams(recall_at_precision, operating_point_state(StreamingRecallAtPrecision, "precision"))
