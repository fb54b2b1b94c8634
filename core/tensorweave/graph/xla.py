"""Which layer XLA could not compile: ``XLAError`` from TensorFlow's unsupported-op error.

With ``jit_compile=True`` TensorFlow reports an op XLA has no kernel for by its op name
inside the traced function (``nce_loss/LogUniformCandidateSampler``), which says nothing
about the layer that emitted it. ``explain(error, graph, who)`` finds the op types the
error names, traces each layer of ``graph`` alone on placeholder inputs to find the layers
that emit them, and returns an ``XLAError`` naming each such layer, its class and the
distribution (plugin pack) that provides it, with the fix (``jit_compile=False``, or
replace the layer). An error that is not about unsupported ops gives ``None``.

>>> import tensorflow as tf
>>> from tensorweave import Graph, Input, Lambda
>>> x = Input(shape=(), dtype="int64", name="ids")
>>> y = Lambda(lambda v: tf.strings.as_string(v), x, dtype="string", name="as_text")
>>> err = tf.errors.InvalidArgumentError(None, None, "Detected unsupported operations "
...     "when trying to compile graph f on XLA_CPU_JIT: AsString (No registered 'AsString' "
...     "OpKernel for XLA_CPU_JIT devices)")
>>> print(explain(err, Graph.build(x, y), "tw.compile"))  # doctest: +ELLIPSIS
tw.compile: XLA (jit_compile=True) cannot compile op AsString, emitted by layer 'as_text' (Lambda from tensorweave). Fix: ...
"""

from __future__ import annotations

import importlib.metadata
import re
from typing import Any

import tensorflow as tf

from tensorweave.errors import TensorweaveError
from tensorweave.graph.graph import Graph
from tensorweave.graph.layer import Layer

__all__ = ["XLAError", "explain", "unsupported_ops"]

_NO_KERNEL = re.compile(r"No registered '(\w+)' OpKernel for XLA")
_UNSUPPORTED = ("Detected unsupported operations", "No registered", "XLA")


class XLAError(TensorweaveError, ValueError):
    """XLA cannot compile a layer of a graph run with ``jit_compile=True``."""


def unsupported_ops(error: BaseException) -> list[str]:
    """The op types an XLA compile error says have no XLA kernel (in order, once each)."""
    found = _NO_KERNEL.findall(str(error))
    return list(dict.fromkeys(found))


def _origin(layer: Layer) -> tuple[str, str]:
    """(what the layer is, the distribution providing it) for the message."""
    fn = getattr(layer, "fn", None)
    fn = getattr(fn, "function", fn)  # a lifted function's call wraps the function
    source = fn if callable(fn) else type(layer)
    if getattr(source, "__module__", "").startswith("tensorweave."):
        source = type(layer)  # a core Lambda/Lifted around a core helper: the layer's class
    module = getattr(source, "__module__", "") or ""
    what = type(layer).__name__
    if source is not type(layer):
        what += f" of {getattr(source, '__module__', '')}.{getattr(source, '__qualname__', '')}"
    dists = importlib.metadata.packages_distributions().get(module.split(".")[0], [])
    return what, dists[0] if dists else module.split(".")[0] or "?"


def _emits(layer: Layer, ops: set[str]) -> set[str]:
    """Which of ``ops`` tracing ``layer.compute`` alone emits (empty if it cannot trace)."""
    specs = [parent.spec for parent in layer.inputs]
    try:
        graph = tf.function(layer.compute, autograph=False).get_concrete_function(*specs).graph
    except Exception:  # a layer that cannot run alone on placeholders: not our culprit
        return set()
    types = {op.type for op in graph.get_operations()}
    for fn in graph._functions.values():  # ops inside nested functions (loops, conds)
        types |= {n.op for n in fn.cached_definition.node_def}
    return types & ops


def explain(error: BaseException, graph: Graph, who: str) -> XLAError | None:
    """An ``XLAError`` naming the layers of ``graph`` XLA could not compile, or ``None``."""
    text = str(error)
    if not any(s in text for s in _UNSUPPORTED):
        return None
    ops = unsupported_ops(error)
    if not ops:
        return None
    culprits = []
    for layer in graph.layers:
        hit = _emits(layer, set(ops)) if layer.inputs else set()
        if hit:
            what, dist = _origin(layer)
            culprits.append(f"layer {layer.name!r} ({what} from {dist})")
    where = ", emitted by " + "; ".join(culprits) if culprits else ""
    return XLAError(
        f"{who}: XLA (jit_compile=True) cannot compile op {', '.join(ops)}{where}. Fix: "
        "run without XLA (jit_compile=False, --train.jit_compile=false), or replace that "
        "layer with one made of ops XLA supports."
    )


def reraise(error: BaseException, graph: Graph, who: str) -> Any:
    """Raise ``explain``'s ``XLAError`` from ``error`` if it applies, else ``error``."""
    mapped = explain(error, graph, who)
    if mapped is not None:
        raise mapped from error
    raise error
