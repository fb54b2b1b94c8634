"""``compile``: a graph turned into one ``tf.function`` (the one place a ``tf.function`` is made).

The function runs the graph's nodes in dependency order, one ``compute`` call each; the
Python loop runs only while tracing, so the traced graph holds exactly the ops the layers
emit and calls cost what a hand-written ``tf.function`` costs. The input signature comes
from the graph's inputs with the batch (and any other ``None``) dimensions left dynamic,
so a new batch size or sequence length does not retrace.

Called while another ``tf.function`` traces (your own train step, a ``Model``'s), a
compiled graph without ``jit_compile=True`` runs its layers inline, in the caller's graph,
as if you had written them there: the same ops as the hand-written step, nothing nested.
A nested function call costs little without XLA, but under an outer
``tf.function(jit_compile=True)`` TensorFlow treats the integer inputs of a nested call
whose gradient is taken (an embedding's ids) as compile-time constants, recompiling the
step for every batch and constant-folding the whole model (seconds per step).

>>> import numpy as np, tensorflow as tf, tensorweave as tw
>>> x = tw.Input(n_units=3, name="x")
>>> y = tw.Lambda(tf.math.reduce_sum, x, axis=-1, keepdims=True)
>>> f = tw.compile(y)
>>> f(np.ones((2, 3), "float32")).numpy().tolist()
[[3.0], [3.0]]
>>> _ = f(np.ones((7, 3), "float32"))
>>> f.trace_count
1

A step that does more than run the graph (a training step: the loss, its gradients, the
update) is compiled the same way with ``body=``: it keeps the signature, the fast path for
eager tensors, inline calls and XLA errors naming the layer (see ``CompiledGraph``).
``trace(fn, *specs)`` traces a function once without running it (what a ``Lambda`` returns);
a layer XLA cannot compile raises ``XLAError`` naming it and its plugin (``explain``).
"""

from __future__ import annotations

import functools
import importlib.metadata
import re
from collections.abc import Callable, Sequence
from typing import Any

import tensorflow as tf

from tensorweave.errors import ArgumentError, TensorweaveError
from tensorweave.graph.graph import Graph
from tensorweave.graph.input import Input
from tensorweave.graph.layer import Layer
from tensorweave.graph.precision import Precision

__all__ = ["compile", "CompiledGraph", "trace", "XLAError", "explain", "unsupported_ops", "reraise"]

_TENSORS = (tf.Tensor, tf.SparseTensor, tf.Variable)


class CompiledGraph:
    """A graph compiled into one ``tf.function``; call it like the graph.

    Args:
        graph: the graph whose inputs the function takes (one value each).
        jit_compile, autograph, reduce_retracing: as ``tf.function``'s.
        body: what the function computes from the inputs' values; default the graph's
            outputs (``graph.run``). A step that does more (a training step: the loss, its
            gradients, the optimizer's update) passes its own and keeps everything else:
            the signature, the fast path, inline calls, XLA errors naming the layers of
            ``graph`` and ``trace_count``.
        input_signature: the specs of the values (default the graph inputs' specs, batch
            dimension ``None``); e.g. several batches stacked on a new first axis.
        owner: who compiles, named in errors (``"Model 'digits'"``).
        precision: the precision policy the function runs under (``"float32"``,
            ``"mixed_bfloat16"``, ``"mixed_float16"`` or a ``tw.Precision``); default the
            one in scope here (``with tw.Precision(...)``), else float32.

    Attributes:
        graph: the graph it runs.
        precision: the policy it runs under (``tensorweave.graph.precision``).
        function: the underlying ``tf.function`` (for ``get_concrete_function``, SavedModel).

    >>> import numpy as np, tensorflow as tf, tensorweave as tw
    >>> x = tw.Input(n_units=2, name="x")
    >>> total = tf.Variable(0.0)
    >>> add = tw.CompiledGraph(x.graph, body=lambda v: total.assign_add(tf.reduce_sum(v)))
    >>> float(add(np.ones((3, 2), "float32"))), float(total)
    (6.0, 6.0)
    """

    def __init__(
        self,
        graph: Graph,
        *,
        jit_compile: bool | None = None,
        autograph: bool = True,
        reduce_retracing: bool = False,
        body: Callable[..., Any] | None = None,
        input_signature: Sequence[tf.TypeSpec] | None = None,
        owner: str = "tw.compile",
        precision: str | Precision | None = None,
    ) -> None:
        self.graph = graph
        self.jit_compile = jit_compile
        self.owner = owner
        self.precision = policy = Precision.of(precision, owner)
        step = graph.run if body is None else body

        def run_graph(*args: Any) -> Any:  # a plain function: autograph converts it inline
            with policy:
                return step(*args)

        self._run_graph = run_graph
        self._inline: Any = None  # run_graph for inline calls (autograph-converted)
        # The traced function, called directly once eager tensors of the same dtypes and
        # shapes went through the tf.function: its per-call argument binding cost more
        # than a small graph's ops.
        self._traced: Any = None
        self._fitting: set[tuple[Any, ...]] = set()  # (dtype, shape) per input, checked
        self._eager = _eager_tensor_type()
        self.autograph = autograph
        given = input_signature is not None
        self.signature: list[tf.TypeSpec] = (
            list(input_signature) if input_signature is not None else [e.spec for e in graph.inputs]
        )
        # Input checks (names, shapes) apply when the values are the graph inputs' own.
        self._checks_inputs = not given
        self.function = tf.function(
            # A partial per instance: TensorFlow counts traces per Python function code
            # (``__code__``, shared by every ``run_graph``), so compiling several graphs in
            # one process (a notebook, a sweep) would warn of "retracing" that is not.
            functools.partial(run_graph),
            input_signature=self.signature,
            jit_compile=jit_compile,
            autograph=autograph,
            reduce_retracing=reduce_retracing,
        )

    def __call__(self, *values: Any) -> Any:
        """Run on one value per graph input; with none, inputs use their current ``value``.

        With ``jit_compile=True``, a layer XLA cannot compile raises ``XLAError`` naming
        it and its plugin (``explain``). Called while another function traces, it runs
        inline (see the module docstring)."""
        key = None
        if values and all(type(v) is self._eager for v in values):
            key = tuple((v.dtype, v.shape) for v in values)
        try:
            if key is not None and key in self._fitting:  # dtypes and shapes already accepted
                return self._traced(*values)
            return self._call(values, key)
        except tf.errors.InvalidArgumentError as error:
            if not self.jit_compile:
                raise
            return reraise(error, self.graph, self.owner)

    def _call(self, values: tuple[Any, ...], key: tuple[Any, ...] | None) -> Any:
        if not values and self._checks_inputs:
            return self.function(*[_current(e) for e in self.graph.inputs])
        values = self._non_tensors_checked(values)
        if tf.inside_function() and not self.jit_compile:
            return self._inline_call(values)
        try:
            # Tensors that fit the signature go straight to the tf.function; eager ones make
            # their (dtype, shape) a known fit, called directly from then on.
            out = self.function(*values)
        except (TypeError, ValueError):
            if not self._checks_inputs:
                raise
            # Anything else is validated by its Input (clear errors naming the input and both
            # shapes) and converted, e.g. a float64 numpy array for a float32 input.
            checked = [
                e.check(v) if isinstance(e, Input) else v
                for e, v in zip(self.graph.inputs, values, strict=True)
            ]
            return self.function(*checked)
        if key is not None and self._fits(values):
            if self._traced is None:
                self._traced = self.function.get_concrete_function()
            self._fitting.add(key)
        return out

    def _fits(self, values: Sequence[Any]) -> bool:
        return all(s.is_compatible_with(v) for s, v in zip(self.signature, values, strict=True))

    def _non_tensors_checked(self, values: tuple[Any, ...]) -> tuple[Any, ...]:
        """``values`` after the count check, numpy arrays, lists and scalars checked by their
        Input (object arrays holding None, numeric strings, complex values are refused with
        the input's name) instead of being converted silently by TensorFlow."""
        if len(values) != len(self.signature):
            names = f" {[i.name for i in self.graph.inputs]}" if self._checks_inputs else ""
            raise TypeError(
                f"compiled graph takes {len(self.signature)} value(s){names}, got {len(values)}."
            )
        if all(isinstance(v, _TENSORS) for v in values) or not self._checks_inputs:
            return values
        return tuple(
            e.check(v) if isinstance(e, Input) and not isinstance(v, _TENSORS) else v
            for e, v in zip(self.graph.inputs, values, strict=True)
        )

    def _inline_call(self, values: tuple[Any, ...]) -> Any:
        if not self._fits(values):
            return self.function(*values)  # raises the signature mismatch, as uninlined
        if self._inline is None:
            run = self._run_graph
            self._inline = tf.autograph.to_graph(run) if self.autograph else run
        return self._inline(*values)

    @property
    def trace_count(self) -> int:
        """How many times the function was traced (1 after any number of batch sizes)."""
        count: int = self.function.experimental_get_tracing_count()
        return count

    def __repr__(self) -> str:
        return f"CompiledGraph({self.graph!r})"


@functools.cache
def _eager_tensor_type() -> type:
    """The concrete class of eager tensors (found once, through the public API)."""
    with tf.init_scope():  # eager even when a function is tracing
        return type(tf.constant(0))


def _current(entry: Layer) -> Any:
    if isinstance(entry, Input):
        return entry.compute()
    return entry()


def compile(
    target: Graph | Layer | list[Layer],
    *,
    jit_compile: bool | None = None,
    autograph: bool = True,
    reduce_retracing: bool = False,
    body: Callable[..., Any] | None = None,
    input_signature: Sequence[tf.TypeSpec] | None = None,
    owner: str = "tw.compile",
    precision: str | Precision | None = None,
) -> CompiledGraph:
    """Compile a graph (or the graph ending in a layer, or in several) into one function.

    Args:
        target: a ``Graph``, a layer, or a list of output layers.
        jit_compile: ask XLA to compile the function (``tf.function(jit_compile=...)``).
        autograph: convert Python control flow in layers (leave on for third-party layers).
        reduce_retracing: passed to ``tf.function``.
        body, input_signature, owner: a step of its own over the graph's inputs (see
            ``CompiledGraph``).
        precision: ``"mixed_bfloat16"`` (or ``"mixed_float16"``, a ``tw.Precision``) runs
            the layers in bfloat16 with float32 variables, the outputs in their declared
            dtypes; default the policy in scope, else ``"float32"``
            (``tensorweave.graph.precision``).
    """
    if isinstance(target, Graph):
        graph = target
    elif isinstance(target, Layer):
        graph = target.graph
    elif isinstance(target, (list, tuple)) and target and all(isinstance(t, Layer) for t in target):
        graph = Graph.build(inputs=None, outputs=list(target))
    else:
        raise ArgumentError(
            f"tw.compile: expected a Graph, a Layer or a non-empty list of Layers, got "
            f"{target!r} ({type(target).__name__}). Fix: pass the output layer, e.g. "
            "tw.compile(y)."
        )
    return CompiledGraph(
        graph,
        jit_compile=jit_compile,
        autograph=autograph,
        reduce_retracing=reduce_retracing,
        body=body,
        input_signature=input_signature,
        owner=owner,
        precision=precision,
    )


def trace(fn: Callable[..., Any], *specs: tf.TypeSpec) -> Any:
    """``fn`` traced once on ``specs`` (without autograph), not run: its concrete function,
    whose ``structured_outputs`` say what it returns and whose ``graph`` holds its ops. How
    a ``Lambda`` finds its output shape and a function is checked against its inputs.

    >>> import tensorflow as tf
    >>> trace(lambda t: t[:, :1], tf.TensorSpec([None, 3])).structured_outputs.shape
    TensorShape([None, 1])
    """
    return tf.function(fn, autograph=False).get_concrete_function(*specs)


# -- which layer XLA could not compile --------------------------------------------------
#
# With ``jit_compile=True`` TensorFlow reports an op XLA has no kernel for by its op name
# inside the traced function (``nce_loss/LogUniformCandidateSampler``), which says nothing
# about the layer that emitted it. ``explain`` finds the op types the error names, traces
# each layer of the graph alone on placeholder inputs to find the layers that emit them, and
# names each such layer, its class and the distribution (plugin pack) that provides it.

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
        graph = trace(layer.compute, *specs).graph
    except Exception:  # a layer that cannot run alone on placeholders: not our culprit
        return set()
    types = {op.type for op in graph.get_operations()}
    for fn in graph._functions.values():  # ops inside nested functions (loops, conds)
        types |= {n.op for n in fn.cached_definition.node_def}
    return types & ops


def explain(error: BaseException, graph: Graph, who: str) -> XLAError | None:
    """An ``XLAError`` naming the layers of ``graph`` XLA could not compile, or ``None``.

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
