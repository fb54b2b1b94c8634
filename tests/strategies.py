"""Hypothesis strategies shared by the core tests: shapes, values and random layer DAGs."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import tensorflow as tf
from hypothesis import strategies as st

import tensorweave as tw

widths = st.integers(min_value=1, max_value=6)
batch_sizes = st.integers(min_value=1, max_value=5)


@st.composite
def shapes(draw: st.DrawFn, min_rank: int = 2, max_rank: int = 3) -> tuple[int | None, ...]:
    """An ``Input`` shape: batch ``None``, then fixed dimensions."""
    rank = draw(st.integers(min_value=min_rank, max_value=max_rank))
    return (None, *draw(st.lists(widths, min_size=rank - 1, max_size=rank - 1)))


def values(shape: tuple[int | None, ...], batch: int, seed: int = 0) -> np.ndarray:
    """A float32 array for ``shape`` with ``batch`` rows."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal([batch, *shape[1:]]).astype("float32")


@dataclass(frozen=True)
class Dag:
    """A random DAG: ``n_inputs`` inputs, then nodes reading earlier nodes by index."""

    n_inputs: int
    parents: tuple[tuple[int, ...], ...]

    @property
    def size(self) -> int:
        return self.n_inputs + len(self.parents)


@st.composite
def dags(draw: st.DrawFn, max_inputs: int = 3, max_nodes: int = 12) -> Dag:
    """A DAG whose node ``k`` reads 1-3 nodes of lower index (so it is acyclic)."""
    n_inputs = draw(st.integers(min_value=1, max_value=max_inputs))
    n_nodes = draw(st.integers(min_value=1, max_value=max_nodes))
    parents = []
    for k in range(n_nodes):
        available = n_inputs + k
        chosen = draw(
            st.lists(
                st.integers(min_value=0, max_value=available - 1),
                min_size=1,
                max_size=min(3, available),
                unique=True,
            )
        )
        parents.append(tuple(chosen))
    return Dag(n_inputs, tuple(parents))


class Add(tw.Layer):
    """A cheap layer (no tracing at construction) that sums its inputs and adds ``bias``."""

    def __init__(self, *inputs, name=None, share_state_with=None):
        first = inputs[0]
        super().__init__(
            *inputs,
            shape=first.shape,
            dtype=first.dtype,
            name=name,
            share_state_with=share_state_with,
        )

    def init_state(self):
        self.state.bias = tf.Variable(tf.random.uniform([self.n_units]), name="bias")

    def compute(self, *tensors):
        return tf.add_n(list(tensors)) + self.state.bias


def build_dag(dag: Dag, n_units: int = 2) -> tuple[list[tw.Input], list[tw.Layer]]:
    """Layers for ``dag``: its inputs, and every node (inputs first) by index."""
    inputs = [tw.Input(n_units=n_units, name=f"in{i}") for i in range(dag.n_inputs)]
    nodes: list[tw.Layer] = list(inputs)
    for k, parents in enumerate(dag.parents):
        nodes.append(Add(*[nodes[p] for p in parents], name=f"n{k}"))
    return inputs, nodes


def sinks(dag: Dag, nodes: list[tw.Layer]) -> list[tw.Layer]:
    """The nodes no other node reads (the DAG's natural outputs), in index order."""
    read = {p for parents in dag.parents for p in parents}
    return [n for i, n in enumerate(nodes) if i >= dag.n_inputs and i not in read]


def numpy_dag(dag: Dag, nodes: list[tw.Layer], feeds: list[np.ndarray]) -> list[np.ndarray]:
    """The value of every node computed with numpy, as an oracle."""
    out: list[np.ndarray] = list(feeds)
    for k, parents in enumerate(dag.parents):
        bias = nodes[dag.n_inputs + k].state.bias.numpy()
        out.append(sum(out[p] for p in parents) + bias)
    return out
