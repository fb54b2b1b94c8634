"""Exact evaluation: streaming states that make a figure over many batches equal the
figure over the whole set at once, for any batch size.

A metric node with a ``streaming()`` state (the losses pack's metrics) is scored by it;
anything else (the loss, a plain ``Lambda``) by an ``ExampleMean``. ``figure`` turns a
result into the number every report shows (epoch line, ``log.csv``, History, summary).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw

__all__ = ["figure", "ExampleMean", "state_of", "needed", "add_batch"]


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


def state_of(node: tw.Layer) -> Any:
    """The streaming state that scores ``node``: its own ``streaming()``, else an
    ``ExampleMean`` of its value."""
    make = getattr(node, "streaming", None)
    state = make() if callable(make) and node.inputs else None
    return state if state is not None else ExampleMean()


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
