"""A metric node's streaming state: what ``node.streaming()`` returns, so that evaluation
over many batches gives the figure of the whole set at once, for any batch size.

Each metric function with a streaming counterpart maps to a maker of its
``StreamingMetric`` from the node's options (and, for per-class accumulators, the static
shapes of its inputs); the node's other arguments (``sample_weight=`` fed by a layer, a
``mask``) are bound to every update.

>>> import tensorweave as tw
>>> y, p = tw.Input(shape=(), name="y"), tw.Input(shape=(), name="p")
>>> state = tw.metrics["f1.v1"](y, p, threshold=0.5).streaming()
>>> state.update([1.0, 0.0], [0.9, 0.8]); state.update([1.0, 1.0], [0.1, 0.7])
>>> round(float(state.result()), 4)  # tp=2 fp=1 fn=1 over both batches
0.6667
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw
from tensorweave.graph.lift import Call, Slot
from tensorweave_losses import auc as _auc
from tensorweave_losses import classification as _cls
from tensorweave_losses import counts as _counts
from tensorweave_losses import exact_match as _exact
from tensorweave_losses import fbeta as _fbeta
from tensorweave_losses import mean_iou as _mean_iou
from tensorweave_losses import overlap as _overlap
from tensorweave_losses import precision_recall as _pr
from tensorweave_losses import regression_metrics as _reg
from tensorweave_losses import sequence as _seq
from tensorweave_losses import streaming as _sm
from tensorweave_losses.accumulators import StreamingMetric

__all__ = ["NodeMetric", "node_metric"]

#: the static shapes of a node's positional arguments (``None`` for an unknown rank)
Shapes = Sequence[tuple[int | None, ...] | None]
Maker = Callable[[dict[str, Any], Shapes], StreamingMetric]


def _made(cls: Callable[..., StreamingMetric], *keys: str) -> tuple[Maker, tuple[str, ...]]:
    """(make the state from a node's options, the options the state takes)."""
    return (lambda opts, shapes: cls(**{k: opts[k] for k in keys if k in opts})), keys


def _auc_state(opts: dict[str, Any], shapes: Shapes) -> StreamingMetric:
    n = opts.get("num_thresholds")
    return _sm.StreamingExactAUC() if n is None else _sm.StreamingAUC(int(n))


def _last_axis(metric: str, shapes: Shapes, what: str) -> int:
    """The static size of the predictions' last axis (1 for rank-1 predictions)."""
    shape = shapes[1] if len(shapes) > 1 else None
    if shape is not None and len(shape) == 1:
        return 1
    if shape is None or shape[-1] is None:
        raise tw.ShapeError(
            f"{metric}: its streaming state keeps one total per {what}, but the predictions' "
            f"last axis is unknown (shape {shape}). Fix: give the predictions a known last "
            f"axis (tw.Input(n_units=...)), or average='micro' for fbeta."
        )
    return int(shape[-1])


def _fbeta_state(opts: dict[str, Any], shapes: Shapes) -> StreamingMetric:
    micro = opts.get("average", "micro") == "micro"
    classes = 1 if micro else _last_axis("fbeta", shapes, "class")
    return _fbeta.StreamingFBeta(classes, **opts)


def _r2_state(opts: dict[str, Any], shapes: Shapes) -> StreamingMetric:
    return _reg.StreamingR2(_last_axis("r2", shapes, "output"), **opts)


def _count(which: str) -> tuple[Maker, tuple[str, ...]]:
    return (lambda opts, shapes: _counts.StreamingCount(which, **opts)), ("thresholds",)


def _error(metric: str) -> tuple[Maker, tuple[str, ...]]:
    return (lambda opts, shapes: _reg.StreamingError(metric)), ()


def _operating_point(
    cls: type[_pr.StreamingPrecisionAtRecall], target: str
) -> tuple[Maker, tuple[str, ...]]:
    keys = (target, "num_thresholds", "class_id")

    def make(opts: dict[str, Any], shapes: Shapes) -> StreamingMetric:
        rest = {k: opts[k] for k in keys[1:] if k in opts}
        return cls(opts[target], **rest)

    return make, keys


# plain metric function -> (make the state from the node's options, the options it takes)
_STATES: dict[Any, tuple[Maker, tuple[str, ...]]] = {
    _cls.accuracy.function: _made(_sm.StreamingAccuracy),
    _cls.sparse_accuracy.function: _made(_sm.StreamingSparseAccuracy),
    _cls.binary_accuracy.function: _made(_sm.StreamingBinaryAccuracy, "threshold"),
    _cls.top_k_accuracy.function: _made(_sm.StreamingTopKAccuracy, "k"),
    _cls.precision.function: _made(_sm.StreamingPrecision, "threshold"),
    _cls.recall.function: _made(_sm.StreamingRecall, "threshold"),
    _cls.f1.function: _made(_sm.StreamingF1, "threshold"),
    _auc.auc.function: (_auc_state, ("num_thresholds",)),
    _seq.perplexity.function: _made(_sm.StreamingPerplexity),
    _sm.mean.function: _made(_sm.StreamingMean),
    _overlap.iou.function: _made(_overlap.StreamingIoU, "threshold"),
    _overlap.dice_coefficient.function: _made(_overlap.StreamingDice, "threshold"),
    _mean_iou.mean_iou.function: _made(
        _mean_iou.StreamingMeanIoU, "num_classes", "target_class_ids", "ignore_class"
    ),
    _reg.mean_squared_error.function: _error("mse"),
    _reg.root_mean_squared_error.function: _error("rmse"),
    _reg.mean_absolute_error.function: _error("mae"),
    _reg.r2_score.function: (_r2_state, ("class_aggregation", "num_regressors")),
    _fbeta.fbeta.function: (_fbeta_state, ("beta", "threshold", "average")),
    _counts.true_positives.function: _count("true_positives"),
    _counts.false_positives.function: _count("false_positives"),
    _counts.true_negatives.function: _count("true_negatives"),
    _counts.false_negatives.function: _count("false_negatives"),
    _pr.precision_at_recall.function: _operating_point(_pr.StreamingPrecisionAtRecall, "recall"),
    _pr.recall_at_precision.function: _operating_point(_pr.StreamingRecallAtPrecision, "precision"),
    _exact.sequence_exact_match.function: _made(_exact.StreamingSequenceExactMatch, "ignore_class"),
}


class NodeMetric:
    """The streaming state of one metric node: ``update(*tensors of the node's inputs)``
    accumulates a batch (the node's other arguments bound), ``result()`` and ``reset()``."""

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


def _shape_of(arg: Any, input_shapes: Sequence[tuple[int | None, ...] | None]) -> Any:
    if isinstance(arg, Slot):
        return input_shapes[arg.index] if arg.index < len(input_shapes) else None
    return tuple(np.shape(arg))


def node_metric(
    function: Any,
    args: Sequence[Any],
    kwargs: dict[str, Any],
    input_shapes: Sequence[tuple[int | None, ...] | None] = (),
) -> NodeMetric | None:
    """The streaming state for a node applying ``function`` to ``args``/``kwargs`` (input
    slots and constants; ``input_shapes`` the static shapes of the node's inputs), or
    ``None`` when ``function`` has no streaming counterpart."""
    entry = _STATES.get(function)
    if entry is None:
        return None
    make, keys = entry
    constants = {k: v for k, v in kwargs.items() if k in keys and not isinstance(v, Slot)}
    if len(constants) != len([k for k in kwargs if k in keys]):
        return None  # an option fed by a layer: no fixed streaming state
    metric = make(constants, [_shape_of(a, input_shapes) for a in args])
    rest = {k: v for k, v in kwargs.items() if k not in keys}
    return NodeMetric(metric, Call(metric.accumulate, args, rest))
