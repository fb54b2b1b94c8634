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

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import tensorflow as tf

from tensorweave.errors import GraphError
from tensorweave.graph.input import Input
from tensorweave.graph.layer import Layer
from tensorweave.graph.precision import active_mixed
from tensorweave.graph.stateful import Stateful

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


class Graph(Stateful):
    """An immutable, validated, dependency-ordered view of a layer graph.

    Attributes:
        inputs: the entry layers, in the order ``compute`` takes values.
        outputs: the output layers, in the order ``compute`` returns them.
        nodes: every layer from inputs to outputs, in dependency order.
    """

    tracked = ("layers",)  # so ``tf.train.Checkpoint(graph=g)`` saves every layer's state

    def __init__(
        self, inputs: Sequence[Layer], outputs: Sequence[Layer], nodes: Sequence[Layer]
    ) -> None:
        super().__init__(name="graph")
        self._inputs = tuple(inputs)
        self._outputs = tuple(outputs)
        self._position = {id(n): i for i, n in enumerate(nodes)}
        self._entry_ids = frozenset(id(i) for i in inputs)
        self.layers = list(nodes)
        # The plan ``run`` follows: per node, the argument it takes (an entry) or the slots
        # of its inputs, resolved once so running does no lookups beyond list indexing.
        entries = {id(e): i for i, e in enumerate(inputs)}
        self._plan = tuple(
            (n, entries[id(n)], ())
            if id(n) in entries
            else (n, -1, tuple(self._position[id(i)] for i in n.inputs))
            for n in nodes
        )
        self._out_slots = tuple(self._position[id(o)] for o in outputs)

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
        if not feed and len(fed) == len(self._inputs):
            return self.run(*[fed[id(e)] for e in self._inputs])
        args = []
        for entry in self._inputs:
            if id(entry) in fed:
                args.append(fed[id(entry)])
            elif isinstance(entry, Input) or not entry.inputs:
                args.append(entry.compute())
            else:  # a non-Input entry that was not fed: evaluate its own graph
                args.append(entry())
        return self.run(*args, fed={k: v for k, v in fed.items() if k not in self._entry_ids})

    def run(self, *args: Any, fed: Mapping[int, Any] | None = None) -> Any:
        """Run the nodes in order on one tensor per entry, with no checks: the one executor.

        ``compute`` checks values and calls it; ``tw.compile`` wraps it in a
        ``tf.function``, so the traced graph holds exactly the ops the layers emit.
        ``fed`` overrides inner nodes by ``id`` (what ``compute(feed=...)`` passes).
        Under a mixed precision policy each node runs through ``Precision.apply`` (its
        inputs and variables in the dtype it computes in) and the outputs come back in
        their declared dtypes (``tensorweave.graph.precision``).
        """
        mixed = active_mixed()
        values: list[Any] = [None] * len(self._plan)
        for k, (node, arg, ins) in enumerate(self._plan):
            if fed and id(node) in fed:
                values[k] = fed[id(node)]
            elif arg >= 0:
                values[k] = args[arg]
            elif mixed is not None:
                values[k] = mixed.apply(node, *[values[i] for i in ins])
            elif ins:
                values[k] = node.compute(*[values[i] for i in ins])
            else:
                values[k] = node.compute()
        if len(self._out_slots) == 1:
            out = values[self._out_slots[0]]
        else:
            out = tuple(values[i] for i in self._out_slots)
        return out if mixed is None else mixed.outputs(self._outputs, out)

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
        if isinstance(value, (tf.Tensor, tf.SparseTensor)) and (
            not tf.executing_eagerly() or _mixed_float(layer, value)
        ):
            layer._check_shape(tuple(value.shape.as_list()))  # symbolic: shape only
            return value
        return layer.check(value)
    return value


def _mixed_float(layer: Layer, value: Any) -> bool:
    """Whether ``value`` is a float tensor for a float input under a mixed precision
    policy (an inner graph's input getting bfloat16): the layers it feeds cast it."""
    return value.dtype.is_floating and layer.dtype.is_floating and active_mixed() is not None


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
