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

from tensorweave.graph.lift import Call, Slot
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
    "StreamingExactAUC",
    "StreamingPerplexity",
    "NodeMetric",
    "node_metric",
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
    #: whether ``update`` compiles with XLA (fixed-size accumulators do)
    jit_compatible = True

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

    def accumulate(self, *args: Any, **kwargs: Any) -> None:
        """Accumulate one batch (``update`` without computing the result)."""
        for variable, part in zip(self.totals, self.parts(*args, **kwargs), strict=True):
            variable.assign_add(tf.cast(part, variable.dtype))

    def update(self, *args: Any, **kwargs: Any) -> tf.Tensor:
        """Accumulate one batch; returns the running result."""
        self.accumulate(*args, **kwargs)
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


def _snake(name: str) -> str:
    out = [("_" + c.lower()) if c.isupper() and i else c.lower() for i, c in enumerate(name)]
    return "".join(out).replace("a_u_c", "auc").replace("f1", "f1")


# -- a metric node's streaming state ------------------------------------------------------
def _made(cls: type[StreamingMetric], *keys: str) -> tuple[Any, tuple[str, ...]]:
    """(make the state from a node's options, the options the state takes)."""
    return (lambda opts: cls(**{k: opts[k] for k in keys if k in opts})), keys


def _auc_state(opts: dict[str, Any]) -> StreamingMetric:
    n = opts.get("num_thresholds")
    return StreamingExactAUC() if n is None else StreamingAUC(int(n))


# plain metric function -> (make the state from the node's options, the options it takes)
_STATES: dict[Any, tuple[Any, tuple[str, ...]]] = {
    _cls.accuracy.function: _made(StreamingAccuracy),
    _cls.sparse_accuracy.function: _made(StreamingSparseAccuracy),
    _cls.binary_accuracy.function: _made(StreamingBinaryAccuracy, "threshold"),
    _cls.top_k_accuracy.function: _made(StreamingTopKAccuracy, "k"),
    _cls.precision.function: _made(StreamingPrecision, "threshold"),
    _cls.recall.function: _made(StreamingRecall, "threshold"),
    _cls.f1.function: _made(StreamingF1, "threshold"),
    _auc.auc.function: (_auc_state, ("num_thresholds",)),
    _seq.perplexity.function: _made(StreamingPerplexity),
    mean.function: _made(StreamingMean),
}


class NodeMetric:
    """The streaming state of one metric node: ``update(*tensors of the node's inputs)``
    accumulates a batch (the node's other arguments bound), ``result()`` and ``reset()``.

    >>> import tensorweave as tw
    >>> y, p = tw.Input(shape=(), name="y"), tw.Input(shape=(), name="p")
    >>> state = tw.metrics["f1.v1"](y, p, threshold=0.5).streaming()
    >>> state.update([1.0, 0.0], [0.9, 0.8]); state.update([1.0, 1.0], [0.1, 0.7])
    >>> round(float(state.result()), 4)  # tp=2 fp=1 fn=1 over both batches
    0.6667
    """

    def __init__(self, metric: StreamingMetric, call: Any) -> None:
        self.metric = metric
        self._call = call

    @property
    def jit_compatible(self) -> bool:
        """Whether ``update`` compiles with XLA (not the exact AUC: it grows)."""
        return bool(self.metric.jit_compatible)

    def update(self, *tensors: Any) -> None:
        """Accumulate one batch, given one tensor per input of the node."""
        self._call(*tensors)

    def result(self) -> tf.Tensor:
        """The metric over every batch since the last reset."""
        return self.metric.result()

    def reset(self) -> None:
        """Forget every batch seen."""
        self.metric.reset()


def node_metric(function: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> NodeMetric | None:
    """The streaming state for a node applying ``function`` to ``args``/``kwargs`` (input
    slots and constants), or ``None`` when ``function`` has no streaming counterpart."""
    entry = _STATES.get(function)
    if entry is None:
        return None
    make, keys = entry
    constants = {k: v for k, v in kwargs.items() if k in keys and not isinstance(v, Slot)}
    if len(constants) != len([k for k in kwargs if k in keys]):
        return None  # an option fed by a layer: no fixed streaming state
    metric = make(constants)
    rest = {k: v for k, v in kwargs.items() if k not in keys}
    return NodeMetric(metric, Call(metric.accumulate, args, rest))
