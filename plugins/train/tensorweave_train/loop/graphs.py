"""The graphs of a ``Model``, built once from what it was given: ``ModelGraphs``.

- ``loss``: the training graph, ending in the total loss and then each named loss;
- ``inference``: copies of the outputs made with the inference options (``training=False``:
  Dropout off, BatchNorm on its moving statistics, every variable shared), what
  ``predict`` and export run;
- ``eval``: what ``test_step`` computes for the figures of ``evaluate`` and validation
  (``eval_metrics``: the inference copies of the losses and metrics, one streaming state
  each);
- ``layers``: every node of them, the graphs as given first (so checkpoints of older
  releases, which listed only those, still restore): what checkpoints and SavedModels see.

Every Input a loss or metric depends on must be fed (an input or a target): a clear error
names the ones that are not.

>>> import tensorweave as tw
>>> x = tw.Input(n_units=2, name="x")
>>> g = ModelGraphs.build([x], [x], feeds=[x], scored=[("loss", tw.ops.reduce_sum(x))])
>>> [n.name for n in g.loss.outputs], list(g.eval_metrics.states), g.regularized
(['reduce_sum'], ['loss'], False)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import tensorweave as tw
from tensorweave_train.loop.metrics import Metrics
from tensorweave_train.loop.objectives import has_regularizers

__all__ = ["ModelGraphs", "fed_graph"]


def fed_graph(
    outputs: Sequence[tw.Layer], what: str, feeds: Sequence[tw.Layer], targets: Sequence[tw.Layer]
) -> tw.Graph:
    """The graph ending in ``outputs``, every Input of which is among ``feeds``."""
    graph = tw.Graph.build(inputs=None, outputs=list(outputs))
    unknown = [i.name for i in graph.inputs if all(i is not f for f in feeds)]
    if unknown:
        inputs = [f.name for f in feeds if all(f is not t for t in targets)]
        raise tw.GraphError(
            f"Model: the {what} depends on Input layer(s) {unknown}, which are neither "
            f"inputs {inputs} nor targets {[t.name for t in targets]}. Fix: pass them in "
            "inputs= or targets=."
        )
    return graph


@dataclass
class ModelGraphs:
    """A model's graphs (see the module docstring)."""

    loss: tw.Graph | None
    inference: tw.Graph
    inference_outputs: tuple[tw.Layer, ...]
    inference_options: dict[str, Any]
    eval: tw.Graph | None
    eval_metrics: Metrics
    layers: list[tw.Layer]
    regularized: bool

    @classmethod
    def build(
        cls,
        inputs: Sequence[tw.Layer],
        outputs: Sequence[tw.Layer],
        *,
        feeds: Sequence[tw.Layer],
        targets: Sequence[tw.Layer] = (),
        losses: int = 1,
        scored: Sequence[tuple[str, tw.Layer]] = (),
        inference_options: Mapping[str, Any] | None = None,
    ) -> ModelGraphs:
        """The graphs of outputs and ``scored`` ``(figure name, node)`` pairs, whose first
        ``losses`` are the losses (the total first; none without a loss)."""
        scored = list(scored)
        loss_nodes = [node for _, node in scored[:losses]]
        given = [tw.Graph.build(inputs=list(inputs), outputs=list(outputs))]
        loss = None
        if loss_nodes:
            loss = fed_graph(loss_nodes, "loss", feeds, targets)
            given.append(loss)
        nodes = [node for _, node in scored]
        if nodes:
            given.append(fed_graph(nodes, "metrics", feeds, targets))
        # inference copies of the outputs, losses and metrics, made in one pass so that
        # shared nodes stay shared
        options = {"training": False} if inference_options is None else dict(inference_options)
        derived = tw.with_options([*outputs, *nodes], **options)
        inference_outputs = tuple(derived[: len(outputs)])
        inference = tw.Graph.build(inputs=list(inputs), outputs=list(inference_outputs))
        given.append(inference)
        names = [name for name, _ in scored]
        eval_metrics = Metrics(list(zip(names, derived[len(outputs) :], strict=True)))
        evaluation = None
        if eval_metrics.scored:
            evaluation = fed_graph(eval_metrics.needed, "metrics", feeds, targets)
            given.append(evaluation)
        seen: dict[int, tw.Layer] = {}
        for graph in given:
            for node in graph.nodes:
                seen.setdefault(id(node), node)
        return cls(
            loss=loss,
            inference=inference,
            inference_outputs=inference_outputs,
            inference_options=options,
            eval=evaluation,
            eval_metrics=eval_metrics,
            layers=list(seen.values()),
            regularized=loss is not None and has_regularizers(loss),
        )
