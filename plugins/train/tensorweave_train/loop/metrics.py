"""Figures over many batches: streaming states that make a figure over the batches equal
the figure over the whole set at once, for any batch size.

``Metrics`` holds one state per named scalar node (the loss and each metric): a metric node
with a ``streaming()`` state (the losses pack's metrics) is scored by it, anything else (the
loss, a plain ``Lambda``) by an ``ExampleMean``. A step adds each batch (``update``) inside
its compiled function; ``results`` reads them. ``figure`` turns a result into the number
every report shows (epoch line, ``log.csv``, History, summary).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw

__all__ = [
    "figure",
    "ExampleMean",
    "Metrics",
    "StepMeans",
    "state_of",
    "needed",
    "add_batch",
    "training_metrics",
    "variables_of",
]


def figure(value: Any) -> float:
    """A reported value: the float32 it is, as the shortest decimal that reads back to it.

    >>> import tensorflow as tf
    >>> figure(tf.constant(2.0) / 3.0), figure(0.1)
    (0.6666667, 0.1)
    """
    return float(str(np.float32(value)))


class ExampleMean:
    """The mean of a per-batch scalar over examples (each batch weighted by its size): the
    exact figure for a per-example mean such as a loss, the default for nodes without a
    ``streaming()`` state.

    >>> import tensorflow as tf
    >>> m = ExampleMean()
    >>> m.update(tf.constant(1.0), 3); m.update(tf.constant(5.0), 1)
    >>> float(m.result())
    2.0
    """

    def __init__(self) -> None:
        self.total = tf.Variable(0.0, dtype=tf.float64, trainable=False, name="total")
        self.count = tf.Variable(0.0, dtype=tf.float64, trainable=False, name="count")

    def update(self, value: Any, size: Any) -> None:
        """Add one batch's value, weighted by its ``size`` (examples)."""
        n = tf.cast(size, tf.float64)
        self.total.assign_add(tf.cast(value, tf.float64) * n)
        self.count.assign_add(n)

    def result(self) -> tf.Tensor:
        """The mean so far (0 before any example)."""
        return tf.math.divide_no_nan(self.total, self.count)

    def reset(self) -> None:
        """Forget every batch."""
        self.total.assign(0.0)
        self.count.assign(0.0)

    @property
    def variables(self) -> tuple[tf.Variable, ...]:
        """What it accumulates (saved with a mid-epoch checkpoint)."""
        return (self.total, self.count)


def variables_of(state: Any) -> tuple[tf.Variable, ...]:
    """The variables a streaming state accumulates in: its ``variables``, else those of the
    ``tf.Module``\\s it holds (a state wrapping a metric object)."""
    found = getattr(state, "variables", None)
    if found is None:
        found = [v for x in vars(state).values() if isinstance(x, tf.Module) for v in x.variables]
    return tuple(found)


def state_of(node: tw.Layer) -> Any:
    """The streaming state that scores ``node``: its own ``streaming()``, else an
    ``ExampleMean`` of its value."""
    make = getattr(node, "streaming", None)
    state = make() if callable(make) and node.inputs else None
    return state if state is not None else ExampleMean()


class Metrics:
    """The streaming state of each named scalar node, and what a step computes to fill them.

    >>> import tensorflow as tf, tensorweave as tw
    >>> x = tw.Input(n_units=2, name="x")
    >>> m = Metrics([("mean", tw.ops.reduce_mean(x))])
    >>> m.update({id(m.needed[0]): tf.constant(3.0)}, 2); m.results()
    {'mean': 3.0}
    """

    def __init__(self, scored: list[tuple[str, tw.Layer]]) -> None:
        self.scored = list(scored)
        with tf.init_scope():  # the states' variables are made eagerly
            self.states: dict[str, Any] = {name: state_of(node) for name, node in scored}
        self.needed = needed(self.scored, self.states)  # what a step computes

    @property
    def jit_compatible(self) -> bool:
        """Whether every state compiles with XLA (the exact AUC grows, so it does not)."""
        return all(getattr(s, "jit_compatible", True) for s in self.states.values())

    def update(self, found: dict[int, Any], size: Any) -> None:
        """Add one batch to every state: ``found`` maps a needed layer's ``id`` to its
        tensor, ``size`` is the batch's number of examples."""
        add_batch(self.scored, self.states, found, size)

    def add_outputs(self, layers: Sequence[tw.Layer], outputs: Sequence[Any], size: Any) -> None:
        """``update`` from a graph's ``outputs`` (one tensor per layer of ``layers``)."""
        self.update({id(layer): t for layer, t in zip(layers, outputs, strict=True)}, size)

    def reset(self) -> None:
        """Forget every batch."""
        for state in self.states.values():
            state.reset()

    def results(self) -> dict[str, float]:
        """Every figure so far, by name (see ``figure``)."""
        return {name: figure(state.result()) for name, state in self.states.items()}

    def snapshot(self) -> dict[str, list[Any]]:
        """What every state has accumulated, as JSON-able lists (a checkpoint taken within
        an epoch keeps the training figures of its first part)."""
        return {
            name: [v.numpy().tolist() for v in variables_of(state)]
            for name, state in self.states.items()
        }

    def restore(self, saved: dict[str, list[Any]]) -> None:
        """Put back what ``snapshot`` returned (states it does not name are reset)."""
        self.reset()
        for name, values in saved.items():
            variables = variables_of(self.states[name]) if name in self.states else ()
            for variable, value in zip(variables, values, strict=False):
                variable.assign(np.asarray(value, variable.dtype.as_numpy_dtype))


def needed(scored: list[tuple[str, tw.Layer]], states: dict[str, Any]) -> list[tw.Layer]:
    """What an evaluation graph computes: the inputs of a node with a streaming state (its
    state takes them), the node itself for an ``ExampleMean``."""
    out: dict[int, tw.Layer] = {}
    for name, node in scored:
        streams = not isinstance(states[name], ExampleMean)
        for layer in node.inputs if streams else (node,):
            out.setdefault(id(layer), layer)
    return list(out.values())


def add_batch(
    scored: list[tuple[str, tw.Layer]],
    states: dict[str, Any],
    found: dict[int, Any],
    size: Any,
) -> None:
    """Add one batch to every state: ``found`` maps a layer's ``id`` to its tensor."""
    for name, node in scored:
        state = states[name]
        if isinstance(state, ExampleMean):
            state.update(found[id(node)], size)
        else:
            state.update(*[found[id(i)] for i in node.inputs])


def training_metrics(model: Any) -> Metrics:
    """The streaming states of ``model``'s metrics over its training batches, as given
    (training mode): what ``Model.compute_loss`` fills beside the loss and the loop reads
    once per epoch (``accuracy`` beside ``val_accuracy``). Empty without a loss or metrics,
    under a ``tf.distribute`` strategy (a replica cannot add to them) and with XLA when a
    state cannot compile (the exact AUC grows)."""
    states = Metrics(list(model.metrics.items()) if model.loss is not None else [])
    if model.distributed or (model.jit_compile and not states.jit_compatible):
        return Metrics([])
    return states


class StepMeans(tw.Stateful):
    """The mean over an epoch's steps of several per-step scalars (a model's named losses
    and its regularization), as the epoch's ``loss`` is: each step adds its values
    (``add``, inside the compiled step), ``results(steps)`` reads them. The sums are
    variables, so a checkpoint holds them and a run resumed mid-epoch reports the figures of
    an uninterrupted one.

    >>> import tensorflow as tf
    >>> m = StepMeans(["a_loss", "b_loss"])
    >>> m.add({"a_loss": tf.constant(1.0), "b_loss": tf.constant(4.0)})
    >>> m.add({"a_loss": tf.constant(2.0), "b_loss": tf.constant(2.0)})
    >>> m.results(2)
    {'a_loss': 1.5, 'b_loss': 3.0}
    """

    tracked = ("sums",)

    def __init__(self, names: list[str]) -> None:
        super().__init__(name="step_means")
        self.names = list(names)
        self.reported = list(names)  # what the train step returns (set when it is traced)
        with tf.init_scope():
            self.sums = tf.Variable(tf.zeros([len(self.names)]), trainable=False, name="step_sums")

    def add(self, values: dict[str, Any]) -> None:
        """Add one step's values (float32 sums, in step order: as the loss's)."""
        step = tf.stack([tf.cast(values[n], tf.float32) for n in self.names])
        self.sums.assign_add(step)

    def reset(self) -> None:
        """Start a new epoch."""
        self.sums.assign(tf.zeros_like(self.sums))

    def results(self, steps: int) -> dict[str, float]:
        """Each mean over ``steps`` steps, as ``figure`` gives it."""
        sums = dict(zip(self.names, self.sums.numpy(), strict=True))
        return {n: figure(float(sums[n]) / max(steps, 1)) for n in self.reported}
