"""``Model.summary()``: the core's ``tw.summary`` table over a model's whole training graph.

The rows are the layers the outputs, the loss and the metrics need, in dependency order,
with the targets, the loss and the metrics labelled (``[target]``, ``[loss]``,
``[metric]``); every variable is counted once (a layer reusing another's state says
``shares <layer>``).

>>> import tensorflow as tf, tensorweave as tw
>>> from tensorweave_train import Model
>>> x = tw.Input(n_units=2, name="x"); t = tw.Input(n_units=1, name="t")
>>> w = tf.Variable(tf.zeros([2, 1]))
>>> y = tw.Lambda(lambda a: a @ w, x, variables=[w], name="y", shape=(None, 1))
>>> mse = tw.Lambda(lambda a, b: tf.reduce_mean((a - b) ** 2), y, t, name="mse", shape=())
>>> text = model_summary(Model(inputs=x, outputs=y, targets=t, loss=mse))
>>> [line.split()[0] for line in text.splitlines() if "[" in line]
['t', 'mse']
>>> text.splitlines()[-2]
'Total params: 2 (trainable 2, non-trainable 0)'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

import tensorweave as tw

__all__ = ["Summarized", "model_summary", "training_graph"]


class Summarized(Protocol):
    """What the summary reads of a ``Model``: its name and the ends of its graphs."""

    @property
    def name(self) -> str: ...

    @property
    def outputs(self) -> Sequence[tw.Layer]: ...

    @property
    def targets(self) -> Sequence[tw.Layer]: ...

    @property
    def loss(self) -> tw.Layer | None: ...

    @property
    def metrics(self) -> Mapping[str, tw.Layer]: ...


def training_graph(model: Summarized) -> tuple[tw.Graph, dict[tw.Layer, str]]:
    """The whole graph of ``model`` (outputs, loss and metrics, back to the inputs) and the
    roles of its nodes (``target``, ``loss``, ``metric``): what the summary lists and
    ``tensorweave draw`` draws."""
    ends: list[tw.Layer] = [*model.outputs]
    roles: dict[tw.Layer, str] = {t: "target" for t in model.targets}
    if model.loss is not None:
        ends.append(model.loss)
        roles[model.loss] = "loss"
    for layer in model.metrics.values():
        ends.append(layer)
        roles.setdefault(layer, "metric")
    return tw.Graph.build(inputs=None, outputs=ends), roles


def model_summary(model: Summarized) -> str:
    """The summary table of ``model`` as text."""
    graph, roles = training_graph(model)
    return tw.summary(graph, title=f'Model "{model.name}"', roles=roles)
