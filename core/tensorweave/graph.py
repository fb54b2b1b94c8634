"""``Graph``: the layers between some inputs and some outputs, in dependency order.

``Graph.build`` walks back from the outputs along ``layer.inputs`` until it meets the
given inputs (or, with ``inputs=None``, every ``Input`` upstream), then checks it:

- an ``Input`` an output depends on but that is not among ``inputs`` is reported, per output;
- a cycle is reported with the layers on it;
- a given input that reaches no output is reported.

The nodes come out in a deterministic topological order, so running them in turn is
correct, and the walk is linear in the number of edges.

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(n_units=2, name="x")
>>> h = tw.Lambda(tf.nn.relu, x, name="h")
>>> y = tw.Lambda(tf.square, h, name="y")
>>> g = tw.Graph.build(inputs=x, outputs=y)
>>> [n.name for n in g.nodes]
['x', 'h', 'y']
>>> g(tf.constant([[-1.0, 3.0]])).numpy().tolist()
[[0.0, 9.0]]
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import tensorflow as tf

from tensorweave.errors import GraphError
from tensorweave.input import Input
from tensorweave.layer import Layer

__all__ = ["Graph"]


def _as_list(layers: Layer | Iterable[Layer] | None) -> list[Layer]:
    if layers is None:
        return []
    if isinstance(layers, Layer):
        return [layers]
    out = list(layers)
    for item in out:
        if not isinstance(item, Layer):
            raise TypeError(f"Graph.build expects layers, got {type(item).__name__}.")
    return out


class Graph(tf.Module):
    """An immutable, validated, dependency-ordered view of a layer graph.

    Attributes:
        inputs: the entry layers, in the order ``compute`` takes values.
        outputs: the output layers, in the order ``compute`` returns them.
        nodes: every layer from inputs to outputs, in dependency order.
    """

    _TF_MODULE_IGNORED_PROPERTIES = tf.Module._TF_MODULE_IGNORED_PROPERTIES | frozenset(
        {"_inputs", "_outputs", "_position", "_entry_ids"}
    )

    def __init__(
        self, inputs: Sequence[Layer], outputs: Sequence[Layer], nodes: Sequence[Layer]
    ) -> None:
        super().__init__(name="graph")
        # Bookkeeping stays outside TF tracking; ``layers`` is tracked, so
        # ``tf.train.Checkpoint(graph=g)`` saves every layer's state.
        object.__setattr__(self, "_inputs", tuple(inputs))
        object.__setattr__(self, "_outputs", tuple(outputs))
        object.__setattr__(self, "_position", {id(n): i for i, n in enumerate(nodes)})
        object.__setattr__(self, "_entry_ids", frozenset(id(i) for i in inputs))
        self.layers = list(nodes)

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def build(
        cls,
        inputs: Layer | Iterable[Layer] | None = None,
        outputs: Layer | Iterable[Layer] | None = None,
        *,
        add_missing_inputs: bool = False,
    ) -> Graph:
        """Walk back from ``outputs`` to ``inputs`` and return the validated graph.

        Args:
            inputs: the entry layers. ``None`` means every ``Input`` found upstream, in the
                order first met walking the outputs' arguments left to right. A non-Input
                layer may be an entry too: the walk stops there and its value is fed.
            outputs: one layer or several.
            add_missing_inputs: append ``Input`` layers the outputs need but ``inputs``
                leaves out instead of raising.
        """
        outs = _as_list(outputs)
        if not outs:
            raise GraphError("Graph.build needs at least one output layer.")
        given = _as_list(inputs)
        discover = inputs is None
        entry = {id(x) for x in given}

        order: list[Layer] = []
        state: dict[int, int] = {}  # 1 = on the current path, 2 = done
        found_inputs: list[Layer] = []
        missing: dict[str, list[str]] = {}
        reached: set[int] = set()

        for out in outs:
            # Iterative depth-first post-order: (node, index of the next input to visit).
            stack: list[tuple[Layer, int]] = [(out, 0)]
            while stack:
                node, i = stack.pop()
                key = id(node)
                if i == 0:
                    if state.get(key) == 2:
                        continue
                    if state.get(key) == 1:
                        raise GraphError(_cycle_message(node, stack))
                    state[key] = 1
                    if key in entry:
                        reached.add(key)
                        state[key] = 2
                        order.append(node)
                        continue
                    if isinstance(node, Input):
                        if discover or add_missing_inputs:
                            found_inputs.append(node)
                            entry.add(key)
                            reached.add(key)
                        else:
                            missing.setdefault(out.name, []).append(node.name)
                        state[key] = 2
                        order.append(node)
                        continue
                if i < len(node.inputs):
                    stack.append((node, i + 1))
                    child = node.inputs[i]
                    child_state = state.get(id(child))
                    if child_state == 1:
                        raise GraphError(_cycle_message(child, stack))
                    if child_state != 2:
                        stack.append((child, 0))
                else:
                    state[key] = 2
                    order.append(node)

        if missing:
            # The walk visits a shared node once, so it saw each missing input under the
            # first output only; name what every output needs (error path only).
            missing = _missing_per_output(outs, entry)
            lines = [
                f"  output {o!r} needs {', '.join(repr(n) for n in names)}"
                for o, names in missing.items()
            ]
            raise GraphError(
                "Graph.build: some outputs depend on inputs that were not given:\n"
                + "\n".join(lines)
                + "\n  Fix: add them to inputs=, pass inputs=None to find them, or "
                "add_missing_inputs=True."
            )
        unreached = [x.name for x in given if id(x) not in reached]
        if unreached:
            raise GraphError(
                f"Graph.build: input(s) {unreached} reach no output "
                f"({[o.name for o in outs]}). Fix: drop them from inputs=, or check that the "
                "outputs were built on them."
            )
        if discover:
            final_inputs = found_inputs
        else:
            final_inputs = given + [x for x in found_inputs if id(x) not in {id(g) for g in given}]
        return cls(final_inputs, outs, order)

    # -- views -----------------------------------------------------------------------------
    @property
    def inputs(self) -> tuple[Layer, ...]:
        """The entry layers, in the order ``compute`` takes values."""
        return self._inputs

    @property
    def outputs(self) -> tuple[Layer, ...]:
        """The output layers."""
        return self._outputs

    @property
    def nodes(self) -> tuple[Layer, ...]:
        """Every layer, in dependency order (each after all of its inputs)."""
        return tuple(self.layers)

    @property
    def variables(self) -> tuple[tf.Variable, ...]:
        """Every variable of every layer, each once (shared state is not repeated)."""
        return _dedup(v for n in self.layers for v in n.variables)

    @property
    def trainable_variables(self) -> tuple[tf.Variable, ...]:
        """Every trainable variable of every layer, each once."""
        return _dedup(v for n in self.layers for v in n.trainable_variables)

    def draw(self, path: str | os.PathLike[str], *, title: str = "") -> Path:
        """Write a picture of this graph: SVG (pure Python), or PNG/PDF with Graphviz.

        Nodes show name, type and shape; shared state (``reuse_with``) is marked; modules
        are drawn as clusters. See ``tensorweave.drawing``.
        """
        from tensorweave.drawing import draw

        return draw(self, path, title=title)

    def __len__(self) -> int:
        return len(self.layers)

    def __contains__(self, layer: object) -> bool:
        return id(layer) in self._position

    def __repr__(self) -> str:
        return (
            f"Graph(inputs={[i.name for i in self.inputs]}, "
            f"outputs={[o.name for o in self.outputs]}, nodes={len(self.layers)})"
        )

    # -- running ----------------------------------------------------------------------------
    def compute(self, *values: Any, feed: Mapping[Layer, Any] | None = None) -> Any:
        """Run the graph eagerly (or inside a ``tf.function`` being traced).

        Pass one value per entry in ``inputs`` (validated by each ``Input``), or a ``feed``
        mapping from layers to values; with neither, inputs use their current ``value``.
        Returns the single output, or a tuple when the graph has several.
        """
        fed = self._feed(values, feed)
        results: dict[int, Any] = {}
        for node in self.layers:
            key = id(node)
            if key in fed:
                results[key] = fed[key]
            elif node.inputs and key not in self._entry_ids:
                results[key] = node.compute(*[results[id(i)] for i in node.inputs])
            elif isinstance(node, Input) or not node.inputs:
                results[key] = node.compute()
            else:  # a non-Input entry that was not fed: evaluate its own graph
                results[key] = node()
        outs = tuple(results[id(o)] for o in self._outputs)
        return outs[0] if len(outs) == 1 else outs

    __call__ = compute

    def _feed(self, values: Sequence[Any], feed: Mapping[Layer, Any] | None) -> dict[int, Any]:
        if values and feed:
            raise TypeError("Graph.compute takes positional values or feed=, not both.")
        if len(values) > len(self._inputs):
            raise TypeError(
                f"Graph.compute got {len(values)} values for {len(self._inputs)} inputs "
                f"{[i.name for i in self._inputs]}."
            )
        pairs = list(zip(self._inputs, values, strict=False))
        if feed:
            for layer, value in feed.items():
                if id(layer) not in self._position:
                    raise GraphError(
                        f"feed names layer {layer.name!r}, which is not in this graph."
                    )
                pairs.append((layer, value))
        fed: dict[int, Any] = {}
        for layer, value in pairs:
            fed[id(layer)] = _checked(layer, value)
        return fed


def _checked(layer: Layer, value: Any) -> Any:
    if isinstance(layer, Input):
        if isinstance(value, (tf.Tensor, tf.SparseTensor)) and not tf.executing_eagerly():
            layer._check_shape(tuple(value.shape.as_list()))  # symbolic: shape only
            return value
        return layer.check(value)
    return value


def _missing_per_output(outputs: Sequence[Layer], entry: set[int]) -> dict[str, list[str]]:
    report: dict[str, list[str]] = {}
    for out in outputs:
        seen: set[int] = set()
        names: list[str] = []
        stack: list[Layer] = [out]
        while stack:
            node = stack.pop()
            if id(node) in seen or id(node) in entry:
                continue
            seen.add(id(node))
            if isinstance(node, Input):
                names.append(node.name)
                continue
            stack.extend(reversed(node.inputs))
        if names:
            report[out.name] = names
    return report


def _cycle_message(node: Layer, stack: Sequence[tuple[Layer, int]]) -> str:
    path = [n.name for n, _ in stack] + [node.name]
    start = path.index(node.name) if node.name in path[:-1] else 0
    return "Graph.build: the graph has a cycle: " + " -> ".join(path[start:])


def _dedup(variables: Iterable[tf.Variable]) -> tuple[tf.Variable, ...]:
    seen: dict[int, tf.Variable] = {}
    for v in variables:
        seen.setdefault(id(v), v)
    return tuple(seen.values())
