"""``TensorweaveLayer``: a tensorweave graph used as a ``keras.layers.Layer``.

Each ``tf.Variable`` of the graph's layers is wrapped (not copied) in a Keras variable and
tracked as a weight of this Keras layer, so ``model.fit``, Keras optimizers and
``model.save_weights`` work on the very variables the tensorweave layers read. The graph
runs compiled (one ``tf.function``) by default. A graph with several inputs takes a list.

>>> import keras, numpy as np, tensorflow as tf, tensorweave as tw
>>> x = tw.Input(n_units=2)
>>> layer = TensorweaveLayer(tw.Lambda(tf.square, x) + 1.0)
>>> model = keras.Sequential([keras.Input((2,)), layer])
>>> model(np.array([[1.0, 2.0]], "float32")).numpy().tolist()
[[2.0, 5.0]]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import keras
import tensorflow as tf

import tensorweave as tw

__all__ = ["TensorweaveLayer"]


@dataclass(frozen=True)
class _Wrapped:
    """The graph and its runner: a plain object, so Keras and TensorFlow do not track it."""

    graph: tw.Graph
    run: Callable[..., Any]


def _keras_name(variable: tf.Variable, position: int) -> str:
    base = variable.name.split(":")[0].replace("/", "_") or "variable"
    return f"{base}_{position}"


class TensorweaveLayer(keras.layers.Layer):
    """A tensorweave graph (or the graph ending in a layer) as a Keras layer.

    Args:
        target: a ``tw.Layer`` (its whole graph up to the ``Input`` layers), a ``tw.Graph``
            or a ``tw.CompiledGraph``.
        compiled: run through ``tw.compile`` (default) rather than eagerly node by node.
        **kwargs: ``keras.layers.Layer`` arguments (``name=``, ``trainable=``…).
    """

    def __init__(
        self,
        target: tw.Layer | tw.Graph | tw.CompiledGraph,
        *,
        compiled: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if isinstance(target, tw.CompiledGraph):
            graph = target.graph
        elif isinstance(target, tw.Graph):
            graph = target
        elif isinstance(target, tw.Layer):
            graph = target.graph
        else:
            raise TypeError(
                f"TensorweaveLayer wraps a tw.Layer, tw.Graph or tw.CompiledGraph, got "
                f"{type(target).__name__}."
            )
        run = (
            (target if isinstance(target, tw.CompiledGraph) else tw.compile(graph))
            if compiled
            else graph.compute
        )
        # Kept out of Keras tracking (in a plain holder): the weights below are the tracked
        # view of the graph's state.
        self._tw = _Wrapped(graph, run)
        self.tw_variables = [
            keras.Variable(initializer=v, trainable=v.trainable, name=_keras_name(v, i))
            for i, v in enumerate(graph.variables)
        ]
        self.built = True

    @property
    def graph(self) -> tw.Graph:
        """The tensorweave graph this layer runs."""
        graph: tw.Graph = self._tw.graph
        return graph

    def call(self, inputs: Any) -> Any:
        """Run the graph on ``inputs`` (one tensor, or a list with one per graph input)."""
        values = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        if len(values) != len(self.graph.inputs):
            raise ValueError(
                f"TensorweaveLayer {self.name!r}: the graph takes {len(self.graph.inputs)} "
                f"input(s) {[i.name for i in self.graph.inputs]}, got {len(values)}."
            )
        return self._tw.run(*values)

    def compute_output_spec(self, inputs: Any) -> Any:
        """The outputs' shapes and dtypes, known from the graph without running it."""
        specs = [keras.KerasTensor(o.shape, dtype=o.dtype.name) for o in self.graph.outputs]
        return specs[0] if len(specs) == 1 else tuple(specs)
