"""Streaming metrics: accumulate over batches, read the result, reset.

Each metric is a ``tf.Module`` whose accumulators are non-trainable variables created at
construction, so ``update`` works eagerly and inside ``tf.function``, checkpoints with
``tf.train.Checkpoint``, and the result over several batches equals the metric function
on all of them at once (the accumulators are the sums those functions divide).

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
from tensorweave_losses.base import float_tensor, graph_function, weights_like

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
    "StreamingPerplexity",
]


def mean_parts(values: Any, *, sample_weight: Any = None) -> tuple[tf.Tensor, tf.Tensor]:
    """(weighted sum, total weight) of ``values``."""
    values = float_tensor(values)
    if sample_weight is None:
        return tf.reduce_sum(values), tf.cast(tf.size(values), values.dtype)
    w = tf.broadcast_to(weights_like("mean", sample_weight, values), tf.shape(values))
    return tf.reduce_sum(values * w), tf.reduce_sum(w)


@graph_function
def mean(values: Any, *, sample_weight: Any = None) -> tf.Tensor:
    """The (weighted) mean of ``values``; 0 when the weights sum to 0.

    >>> float(mean([1.0, 2.0, 6.0], sample_weight=[1.0, 1.0, 0.0]))
    1.5
    """
    return _cls.ratio(*mean_parts(values, sample_weight=sample_weight))


class StreamingMetric(tf.Module):
    """Base class: subclasses define ``shapes``, ``parts(*batch)`` and ``finish(*totals)``.

    ``update(*batch, **options)`` adds one batch's parts to the accumulators and returns
    the running result; ``result()`` reads it; ``reset()`` zeroes the accumulators.
    """

    shapes: Sequence[tuple[int, ...]] = ((), ())

    def __init__(self, *, name: str | None = None) -> None:
        super().__init__(name=name or _snake(type(self).__name__))
        self.totals = [
            tf.Variable(tf.zeros(shape, tf.float32), trainable=False, name=f"total_{i}")
            for i, shape in enumerate(self._shapes())
        ]

    def _shapes(self) -> Sequence[tuple[int, ...]]:
        return self.shapes

    def parts(self, *args: Any, **kwargs: Any) -> Sequence[tf.Tensor]:
        """The sums one batch contributes."""
        raise NotImplementedError

    def finish(self, *totals: tf.Tensor) -> tf.Tensor:
        """The metric from the accumulated sums (default: a ratio of two sums)."""
        return _cls.ratio(*totals)

    def update(self, *args: Any, **kwargs: Any) -> tf.Tensor:
        """Accumulate one batch; returns the running result."""
        for variable, part in zip(self.totals, self.parts(*args, **kwargs), strict=True):
            variable.assign_add(tf.cast(part, variable.dtype))
        return self.result()

    def result(self) -> tf.Tensor:
        """The metric over every batch since the last reset."""
        return self.finish(*[v.read_value() for v in self.totals])

    def reset(self) -> None:
        """Forget every batch seen."""
        for variable in self.totals:
            variable.assign(tf.zeros_like(variable))

    update_state = update
    reset_state = reset

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


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


class StreamingPerplexity(StreamingMetric):
    """Running perplexity: ``update(ids, logits, mask=None, lengths=None, sample_weight=None)``."""

    def parts(self, ids: Any, logits: Any, **kwargs: Any) -> Sequence[tf.Tensor]:
        return _seq.perplexity_parts(ids, logits, **kwargs)

    def finish(self, *totals: tf.Tensor) -> tf.Tensor:
        return _seq.perplexity_result(*totals)


def _snake(name: str) -> str:
    out = [("_" + c.lower()) if c.isupper() and i else c.lower() for i, c in enumerate(name)]
    return "".join(out).replace("a_u_c", "auc").replace("f1", "f1")
