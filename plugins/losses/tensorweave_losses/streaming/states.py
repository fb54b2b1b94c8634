"""A metric node's streaming state: what ``node.streaming()`` returns, so that evaluation
over many batches gives the figure of the whole set at once, for any batch size.

Each metric module declares, beside its function, how to make the function's
``StreamingMetric`` from a node's options (and, for per-class accumulators, the static
shapes of its inputs): ``streams(accuracy, made(StreamingAccuracy))``. The node's other
arguments (``sample_weight=`` fed by a layer, a ``mask``) are bound to every update.

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
from tensorweave_losses.streaming.accumulators import StreamingMetric

__all__ = ["NodeMetric", "node_metric", "streams", "made", "last_axis", "Maker", "Shapes"]

#: the static shapes of a node's positional arguments (``None`` for an unknown rank)
Shapes = Sequence[tuple[int | None, ...] | None]
Maker = Callable[[dict[str, Any], Shapes], StreamingMetric]

# plain metric function -> (make the state from the node's options, the options it takes);
# each entry is written by the module defining the function, as it defines it
STATES: dict[Any, tuple[Maker, tuple[str, ...]]] = {}


def streams(metric: Any, maker: tuple[Maker, tuple[str, ...]]) -> None:
    """Declare the streaming state of ``metric`` (a ``graph_function``): ``maker`` is (make
    the state from a node's options and input shapes, the options the state takes)."""
    STATES[metric.function] = maker


def made(cls: Callable[..., StreamingMetric], *keys: str) -> tuple[Maker, tuple[str, ...]]:
    """(make the state ``cls(**options)`` from a node's ``keys`` options, ``keys``)."""
    return (lambda opts, shapes: cls(**{k: opts[k] for k in keys if k in opts})), keys


def last_axis(metric: str, shapes: Shapes, what: str) -> int:
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
    entry = STATES.get(function)
    if entry is None:
        return None
    make, keys = entry
    constants = {k: v for k, v in kwargs.items() if k in keys and not isinstance(v, Slot)}
    if len(constants) != len([k for k in kwargs if k in keys]):
        return None  # an option fed by a layer: no fixed streaming state
    metric = make(constants, [_shape_of(a, input_shapes) for a in args])
    rest = {k: v for k, v in kwargs.items() if k not in keys}
    return NodeMetric(metric, Call(metric.accumulate, args, rest))
