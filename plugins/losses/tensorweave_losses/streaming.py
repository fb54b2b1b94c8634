"""Streaming metrics: accumulate over batches, read the result, reset.

The streaming counterparts of the classification, AUC and perplexity metrics, registered as
``streaming_<metric>.v1`` (``StreamingMetric`` s, see ``accumulators``): the result over
several batches equals the metric function on all of them at once.

>>> from tensorweave_losses.streaming import StreamingSparseAccuracy
>>> metric = StreamingSparseAccuracy()
>>> _ = metric.update([0, 1], [[0.9, 0.1], [0.8, 0.2]])
>>> _ = metric.update([1], [[0.1, 0.9]])
>>> round(float(metric.result()), 4)
0.6667
>>> metric.reset(); float(metric.result())
0.0
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

from tensorweave_losses import auc as _auc
from tensorweave_losses import classification as _cls
from tensorweave_losses import sequence as _seq
from tensorweave_losses.accumulators import StreamingMetric, mean_parts, ratio
from tensorweave_losses.base import graph_function

__all__ = [
    "mean",
    "mean_parts",
    "StreamingMetric",
    "StreamingMean",
    "StreamingAccuracy",
    "StreamingSparseAccuracy",
    "StreamingBinaryAccuracy",
    "StreamingTopKAccuracy",
    "StreamingPrecision",
    "StreamingRecall",
    "StreamingF1",
    "StreamingAUC",
    "StreamingExactAUC",
    "StreamingPerplexity",
]


@graph_function
def mean(values: Any, *, sample_weight: Any = None) -> tf.Tensor:
    """The (weighted) mean of ``values``; 0 when the weights sum to 0.

    >>> float(mean([1.0, 2.0, 6.0], sample_weight=[1.0, 1.0, 0.0]))
    1.5
    """
    return ratio(*mean_parts(values, sample_weight=sample_weight))


class StreamingMean(StreamingMetric):
    """Running (weighted) mean: ``update(values, sample_weight=None)``."""

    def parts(self, values: Any, *, sample_weight: Any = None) -> Sequence[tf.Tensor]:
        return mean_parts(values, sample_weight=sample_weight)


class StreamingAccuracy(StreamingMetric):
    """Running accuracy of one-hot labels: ``update(labels, predictions, sample_weight=None)``."""

    def parts(
        self, labels: Any, predictions: Any, *, sample_weight: Any = None
    ) -> Sequence[tf.Tensor]:
        return _cls.accuracy_parts(labels, predictions, sample_weight=sample_weight)


class StreamingSparseAccuracy(StreamingMetric):
    """Running accuracy of class ids: ``update(labels, predictions, sample_weight=None)``."""

    def parts(
        self, labels: Any, predictions: Any, *, sample_weight: Any = None
    ) -> Sequence[tf.Tensor]:
        return _cls.sparse_accuracy_parts(labels, predictions, sample_weight=sample_weight)


class StreamingBinaryAccuracy(StreamingMetric):
    """Running binary accuracy at ``threshold``."""

    def __init__(self, threshold: float = 0.5, *, name: str | None = None) -> None:
        super().__init__(name=name)
        self.threshold = threshold

    def parts(
        self, labels: Any, predictions: Any, *, sample_weight: Any = None
    ) -> Sequence[tf.Tensor]:
        return _cls.binary_accuracy_parts(
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
        return _cls.top_k_accuracy_parts(labels, predictions, k=self.k, sample_weight=sample_weight)


class _Confusion(StreamingMetric):
    shapes = ((), (), ())

    def __init__(self, threshold: float = 0.5, *, name: str | None = None) -> None:
        super().__init__(name=name)
        self.threshold = threshold

    def parts(
        self, labels: Any, predictions: Any, *, sample_weight: Any = None
    ) -> Sequence[tf.Tensor]:
        return _cls.confusion_parts(
            labels, predictions, threshold=self.threshold, sample_weight=sample_weight
        )


class StreamingPrecision(_Confusion):
    """Running precision at ``threshold`` (accumulates tp, fp, fn)."""

    def finish(self, *totals: tf.Tensor) -> tf.Tensor:
        return _cls.precision_result(*totals)


class StreamingRecall(_Confusion):
    """Running recall at ``threshold`` (accumulates tp, fp, fn)."""

    def finish(self, *totals: tf.Tensor) -> tf.Tensor:
        return _cls.recall_result(*totals)


class StreamingF1(_Confusion):
    """Running F1 at ``threshold`` (accumulates tp, fp, fn)."""

    def finish(self, *totals: tf.Tensor) -> tf.Tensor:
        return _cls.f1_result(*totals)


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
        return _auc.histogram_parts(
            labels, predictions, num_thresholds=self.num_thresholds, sample_weight=sample_weight
        )

    def finish(self, *totals: tf.Tensor) -> tf.Tensor:
        return _auc.histogram_result(*totals)


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
        return _auc.exact_parts(labels, predictions, sample_weight=sample_weight)

    def accumulate(self, *args: Any, **kwargs: Any) -> None:
        for variable, part in zip(self.totals, self.parts(*args, **kwargs), strict=True):
            variable.assign(tf.concat([variable, tf.cast(part, variable.dtype)], 0))

    def finish(self, *totals: tf.Tensor) -> tf.Tensor:
        return _auc.exact_result(*totals)

    def reset(self) -> None:
        for variable in self.totals:
            variable.assign(tf.zeros([0], variable.dtype))

    reset_state = reset


class StreamingPerplexity(StreamingMetric):
    """Running perplexity: ``update(ids, logits, mask=None, lengths=None, sample_weight=None)``."""

    def parts(self, ids: Any, logits: Any, **kwargs: Any) -> Sequence[tf.Tensor]:
        return _seq.perplexity_parts(ids, logits, **kwargs)

    def finish(self, *totals: tf.Tensor) -> tf.Tensor:
        return _seq.perplexity_result(*totals)
