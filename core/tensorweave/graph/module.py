"""``Module``: a graph folded into one reusable layer.

A module's inputs are the graph's entry layers and its output is the graph's output;
``compute`` runs the inner graph. ``reuse_with`` rebuilds every inner node with its own
``reuse_with`` on the new inputs, so the copy shares every inner variable. Modules nest.

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(n_units=2, name="x")
>>> block = tw.Module(x, tw.Lambda(tf.square, x) + 1.0, name="block")
>>> x2 = tw.Input(n_units=2, name="x2")
>>> block2 = block.reuse_with(x2)
>>> block2.compute(tf.constant([[2.0, 3.0]])).numpy().tolist()
[[5.0, 10.0]]
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from typing import Any

from tensorweave.graph.graph import Graph
from tensorweave.graph.layer import Layer

__all__ = ["Module"]


class Module(Layer):
    """Fold the graph from ``inputs`` to ``output`` into one layer.

    Args:
        inputs: the entry layer(s) of the inner graph (usually ``Input`` layers); they
            become this module's inputs.
        output: the layer whose value the module returns.
        name: a readable name.
        share_state_with: a module whose inner state to share (``reuse_with`` sets it).
    """

    # under a mixed precision policy each inner layer decides its own dtype
    compute_precision = "inputs"

    def __init__(
        self,
        inputs: Layer | Iterable[Layer],
        output: Layer,
        *,
        name: str | None = None,
        share_state_with: Module | None = None,
    ) -> None:
        graph = Graph.build(inputs=inputs, outputs=output)
        self._tw_inner = graph  # set first: init_state reads it
        super().__init__(
            *graph.inputs,
            shape=output.shape,
            dtype=output.dtype,
            sparse=output.sparse,
            name=name,
            share_state_with=share_state_with,
        )
        # the inner output's padding mask, when the module takes it as an input
        if any(output.padding_mask is i for i in self.inputs):
            self.padding_mask = output.padding_mask

    def init_state(self) -> None:
        """The state holds the inner layers, so checkpoints and ``variables`` see them."""
        entry = {id(i) for i in self.inner_graph.inputs}
        self.state.layers = [n for n in self.inner_graph.nodes if id(n) not in entry]

    @property
    def inner_graph(self) -> Graph:
        """The graph this module runs."""
        return self._tw_inner

    @property
    def output(self) -> Layer:
        """The inner layer whose value this module returns."""
        return self.inner_graph.outputs[0]

    def compute(self, *tensors: Any) -> Any:
        """Run the inner graph on one tensor per input."""
        return self.inner_graph.compute(*tensors)

    def reuse_with(self, *inputs: Layer, name: str | None = None, **options: Any) -> Module:
        """Rebuild the inner graph on ``inputs``, every inner layer sharing its state.

        ``options`` (e.g. ``training=False``) go to each inner layer whose ``reuse_with``
        accepts them, so a module of BatchNorm layers switches to inference in one call.
        """
        old_inputs = self.inner_graph.inputs
        if len(inputs) != len(old_inputs):
            raise TypeError(
                f"Module {self.name!r}.reuse_with expected {len(old_inputs)} input(s) "
                f"({[i.name for i in old_inputs]}), got {len(inputs)}."
            )
        mapped: dict[int, Layer] = {id(o): n for o, n in zip(old_inputs, inputs, strict=True)}
        for node in self.inner_graph.nodes:
            if id(node) in mapped:
                continue
            if not node.inputs:  # constants and parameters are shared as they are
                mapped[id(node)] = node
                continue
            new_inputs = [mapped[id(i)] for i in node.inputs]
            mapped[id(node)] = node.reuse_with(*new_inputs, **_accepted(node, options))
        return Module(list(inputs), mapped[id(self.output)], name=name, share_state_with=self)


def _accepted(node: Layer, options: dict[str, Any]) -> dict[str, Any]:
    if not options:
        return {}
    params = inspect.signature(node.reuse_with).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        if type(node).reuse_with is Layer.reuse_with:
            # the default reuse passes options to the constructor: keep the ones it takes
            ctor = inspect.signature(type(node).__init__).parameters
            return {k: v for k, v in options.items() if k in ctor}
        return dict(options)
    return {k: v for k, v in options.items() if k in params}
