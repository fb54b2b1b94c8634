"""``compile``: a graph turned into one ``tf.function``.

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
"""

from __future__ import annotations

import functools
from typing import Any

import tensorflow as tf

from tensorweave.errors import ArgumentError
from tensorweave.graph.graph import Graph
from tensorweave.graph.input import Input
from tensorweave.graph.layer import Layer
from tensorweave.graph.xla import reraise

__all__ = ["compile", "CompiledGraph"]

_TENSORS = (tf.Tensor, tf.SparseTensor, tf.Variable)


class CompiledGraph:
    """A graph compiled into one ``tf.function``; call it like the graph.

    Attributes:
        graph: the graph it runs.
        function: the underlying ``tf.function`` (for ``get_concrete_function``, SavedModel).
    """

    def __init__(
        self,
        graph: Graph,
        *,
        jit_compile: bool | None = None,
        autograph: bool = True,
        reduce_retracing: bool = False,
    ) -> None:
        self.graph = graph
        self.jit_compile = jit_compile
        entries = graph.inputs

        def run_graph(*args: Any) -> Any:
            return graph.run(*args)

        self._run_graph = run_graph
        self._inline: Any = None  # run_graph for inline calls (autograph-converted)
        # The traced function, called directly once eager tensors of the same dtypes and
        # shapes went through the tf.function: its per-call argument binding cost more
        # than a small graph's ops (measured: 98 us a call against 38 us, one thread).
        self._traced: Any = None
        self._fitting: set[tuple[Any, ...]] = set()  # (dtype, shape) per input, checked
        self._eager = _eager_tensor_type()
        self.autograph = autograph
        signature = [e.spec for e in entries]
        self.function = tf.function(
            run_graph,
            input_signature=signature,
            jit_compile=jit_compile,
            autograph=autograph,
            reduce_retracing=reduce_retracing,
        )

    def __call__(self, *values: Any) -> Any:
        """Run on one value per graph input; with none, inputs use their current ``value``.

        With ``jit_compile=True``, a layer XLA cannot compile raises ``XLAError`` naming
        it and its plugin (``tensorweave.graph.xla``). Called while another function
        traces, it runs inline (see the module docstring)."""
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
            return reraise(error, self.graph, "tw.compile")

    def _call(self, values: tuple[Any, ...], key: tuple[Any, ...] | None) -> Any:
        if not values:
            return self.function(*[_current(e) for e in self.graph.inputs])
        values = self._non_tensors_checked(values)
        if tf.inside_function() and not self.jit_compile:
            return self._inline_call(values)
        try:
            # Tensors that fit the signature go straight to the tf.function; eager ones make
            # their (dtype, shape) a known fit, called directly from then on.
            out = self.function(*values)
        except (TypeError, ValueError):
            # Anything else is validated by its Input (clear errors naming the input and both
            # shapes) and converted, e.g. a float64 numpy array for a float32 input.
            checked = [
                e.check(v) if isinstance(e, Input) else v
                for e, v in zip(self.graph.inputs, values, strict=True)
            ]
            return self.function(*checked)
        if key is not None and all(
            e.spec.is_compatible_with(v) for e, v in zip(self.graph.inputs, values, strict=True)
        ):
            if self._traced is None:
                self._traced = self.function.get_concrete_function()
            self._fitting.add(key)
        return out

    def _non_tensors_checked(self, values: tuple[Any, ...]) -> tuple[Any, ...]:
        """``values`` after the count check, numpy arrays, lists and scalars checked by their
        Input (object arrays holding None, numeric strings, complex values are refused with
        the input's name) instead of being converted silently by TensorFlow."""
        if len(values) != len(self.graph.inputs):
            raise TypeError(
                f"compiled graph takes {len(self.graph.inputs)} value(s) "
                f"{[i.name for i in self.graph.inputs]}, got {len(values)}."
            )
        if all(isinstance(v, _TENSORS) for v in values):
            return values
        return tuple(
            e.check(v) if isinstance(e, Input) and not isinstance(v, _TENSORS) else v
            for e, v in zip(self.graph.inputs, values, strict=True)
        )

    def _inline_call(self, values: tuple[Any, ...]) -> Any:
        if not all(
            e.spec.is_compatible_with(v) for e, v in zip(self.graph.inputs, values, strict=True)
        ):
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
) -> CompiledGraph:
    """Compile a graph (or the graph ending in a layer, or in several) into one function.

    Args:
        target: a ``Graph``, a layer, or a list of output layers.
        jit_compile: ask XLA to compile the function (``tf.function(jit_compile=...)``).
        autograph: convert Python control flow in layers (leave on for third-party layers).
        reduce_retracing: passed to ``tf.function``.
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
        graph, jit_compile=jit_compile, autograph=autograph, reduce_retracing=reduce_retracing
    )
