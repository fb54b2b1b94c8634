"""A table of a graph's layers, as Keras's ``model.summary()``: ``tw.summary(outputs)``.

One row per layer in dependency order: its name, type, output shape, the number of
parameters it adds, and what it reads. A layer that reuses another's state (made with
``reuse_with`` or ``share_state_with``), or whose variables were already counted, says
which layer it shares with and adds no parameters: every variable is counted once, so the
totals match ``graph.variables``. ``roles`` labels special nodes (``{layer: "metric"}``),
e.g. a training model's loss and metrics.

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(n_units=2, name="x")
>>> w = tf.Variable(tf.ones([2, 3]))
>>> y = tw.Lambda(lambda a: a @ w, x, variables=[w], name="y", shape=(None, 3))
>>> x2 = tw.Lambda(lambda a: 2.0 * a, x, name="x2")
>>> z = tw.Lambda(lambda a: a @ w, x2, name="z", shape=(None, 3), share_state_with=y)
>>> print(tw.summary([y, z]))
------------------------------------------------
Layer (type)  Output shape        Params  Inputs
================================================
x (Input)     (None, 2)                0
y (Lambda)    (None, 3)                6  x
x2 (Lambda)   (None, 2)                0  x
z (Lambda)    (None, 3)     0 (shares y)  x2
------------------------------------------------
Total params: 6 (trainable 6, non-trainable 0)
Layers: 4 (1 sharing another layer's state)
>>> [(r.name, r.params, r.shared_with) for r in summary_rows(z)]  # alone, z owns w
[('x', 0, None), ('x2', 0, None), ('z', 6, None)]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from tensorweave.graph.graph import Graph
from tensorweave.graph.input import Input
from tensorweave.graph.layer import Layer

__all__ = ["summary", "summary_rows", "SummaryRow"]


@dataclass(frozen=True)
class SummaryRow:
    """One layer of a summary: what it is and the parameters it adds (0 when shared)."""

    name: str
    kind: str
    shape: tuple[int | None, ...]
    params: int
    trainable: int
    inputs: tuple[str, ...]
    shared_with: str | None = None
    role: str | None = None

    @property
    def shape_text(self) -> str:
        """The output shape as Keras prints it: ``(None, 10)``."""
        dims = ", ".join("None" if d is None else str(d) for d in self.shape)
        return f"({dims},)" if len(self.shape) == 1 else f"({dims})"


def _as_graph(value: Any) -> Graph:
    if isinstance(value, Graph):
        return value
    return Graph.build(inputs=None, outputs=value)


def _size(v: Any) -> int:
    return int(np.prod(v.shape.as_list()) if v.shape.is_fully_defined() else np.size(v.numpy()))


def summary_rows(graph: Any, *, roles: Mapping[Layer, str] | None = None) -> list[SummaryRow]:
    """The rows of ``graph``'s summary (a ``tw.Graph``, a layer or a list of outputs)."""
    g = _as_graph(graph)
    role_of = {id(k): v for k, v in (roles or {}).items()}
    owner_of_state: dict[int, str] = {}
    owner_of_var: dict[int, str] = {}
    rows: list[SummaryRow] = []
    for node in g.nodes:
        shared: str | None = None
        params = trainable = 0
        if not isinstance(node, Input):
            state = getattr(node, "state", None)
            if state is not None and id(state) in owner_of_state:
                shared = owner_of_state[id(state)]
            elif state is not None:
                owner_of_state[id(state)] = node.name
            train_ids = {id(v) for v in node.trainable_variables}
            for v in node.variables:
                if id(v) in owner_of_var:
                    shared = shared or owner_of_var[id(v)]
                    continue
                owner_of_var[id(v)] = node.name
                params += _size(v)
                trainable += _size(v) if id(v) in train_ids else 0
        rows.append(
            SummaryRow(
                name=node.name,
                kind=type(node).__name__,
                shape=tuple(node.shape),
                params=params,
                trainable=trainable,
                inputs=tuple(i.name for i in node.inputs),
                shared_with=shared,
                role=role_of.get(id(node)),
            )
        )
    return rows


def _table(header: list[str], body: Iterable[list[str]], right: set[int]) -> list[str]:
    rows = [header, *body]
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]

    def fmt(r: list[str]) -> str:
        cells = [
            c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))
        ]
        return "  ".join(cells).rstrip()

    rule = "-" * len(fmt(["-" * w for w in widths]))
    return [rule, fmt(header), rule.replace("-", "="), *(fmt(r) for r in rows[1:]), rule]


def summary(graph: Any, *, title: str = "", roles: Mapping[Layer, str] | None = None) -> str:
    """The summary table of ``graph`` (a ``tw.Graph``, a layer or a list of output layers).

    Columns: layer (name and type; ``[metric]`` etc. from ``roles``), output shape,
    parameters added, inputs. Shared layers read ``shares <layer>``. The totals count each
    variable once.
    """
    rows = summary_rows(graph, roles=roles)
    body = []
    for r in rows:
        label = f"{r.name} ({r.kind})" + (f" [{r.role}]" if r.role else "")
        params = f"{r.params:,}" + (f" (shares {r.shared_with})" if r.shared_with else "")
        body.append([label, r.shape_text, params, ", ".join(r.inputs)])
    lines = [title] if title else []
    lines += _table(["Layer (type)", "Output shape", "Params", "Inputs"], body, {2})
    total = sum(r.params for r in rows)
    train = sum(r.trainable for r in rows)
    lines.append(f"Total params: {total:,} (trainable {train:,}, non-trainable {total - train:,})")
    shared = sum(1 for r in rows if r.shared_with is not None)
    lines.append(f"Layers: {len(rows)} ({shared} sharing another layer's state)")
    return "\n".join(lines)
