"""A layered (Sugiyama-style) layout of a DAG, left to right, with edges routed between layers.

Pure geometry (no TensorFlow, no drawing): nodes are placed in columns by dependency depth
(longest path from a source), an edge spanning several columns gets a *dummy* slot in each
column it crosses (so it passes through a reserved gap, never through a box), the order
within each column is found by barycentric sweeps (each node near the mean position of its
neighbours in the adjacent column; the order with fewest crossings is kept), and each
column is shifted towards its predecessors so chains run straight. ``edge_segments`` turns
a route into drawing segments: a cubic curve across each gap between columns and a
straight stretch through each column a long edge crosses. ``picture`` uses it when
Graphviz's ``dot`` is not installed.

>>> lay = layered(["a", "b", "c"], [("a", "b"), ("b", "c"), ("a", "c")],
...               {"a": (40, 20), "b": (40, 20), "c": (40, 20)})
>>> [lay.column[k] for k in "abc"], len(lay.routes[("a", "c")])  # a->c passes column 1
([0, 1, 2], 1)
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

__all__ = ["Layout", "layered", "edge_segments", "crossings"]

Key = Hashable
Point = tuple[float, float]
Segment = tuple[str, tuple[Point, ...]]  # ("C", (p0, c1, c2, p3)) or ("L", (p0, p1))

_DUMMY_H = 8.0


@dataclass
class Layout:
    """Where each node's box goes (top-left ``pos``), its ``column``, and each long edge's
    waypoints through the columns it crosses (``routes[(a, b)]``: one ``(left, right)``
    pair of points per crossed column, at the edge's reserved height)."""

    pos: dict[Key, Point] = field(default_factory=dict)
    column: dict[Key, int] = field(default_factory=dict)
    routes: dict[tuple[Key, Key], list[tuple[Point, Point]]] = field(default_factory=dict)
    width: float = 0.0
    height: float = 0.0


def crossings(order: Sequence[Sequence[Key]], links: Sequence[tuple[Key, Key]]) -> int:
    """How many pairs of links between adjacent columns cross, for columns in ``order``."""
    index = {k: i for col in order for i, k in enumerate(col)}
    col_of = {k: c for c, col in enumerate(order) for k in col}
    by_col: dict[int, list[tuple[int, int]]] = {}
    for a, b in links:
        by_col.setdefault(col_of[a], []).append((index[a], index[b]))
    total = 0
    for pairs in by_col.values():
        for i, (a1, b1) in enumerate(pairs):
            for a2, b2 in pairs[i + 1 :]:
                total += (a1 - a2) * (b1 - b2) < 0
    return total


def _order(columns: list[list[Key]], links: list[tuple[Key, Key]], sweeps: int) -> list[list[Key]]:
    preds: dict[Key, list[Key]] = {}
    succs: dict[Key, list[Key]] = {}
    for a, b in links:
        succs.setdefault(a, []).append(b)
        preds.setdefault(b, []).append(a)
    best = [list(c) for c in columns]
    best_cost = crossings(best, links)
    current = [list(c) for c in best]
    for sweep in range(sweeps):
        down = sweep % 2 == 0
        span = range(1, len(current)) if down else range(len(current) - 2, -1, -1)
        for c in span:
            ref = current[c - 1] if down else current[c + 1]
            where = {k: i for i, k in enumerate(ref)}
            near = preds if down else succs
            col = current[c]
            keys = {}
            for i, k in enumerate(col):
                ns = [where[n] for n in near.get(k, []) if n in where]
                keys[k] = sum(ns) / len(ns) if ns else float(i)
            current[c] = sorted(col, key=keys.__getitem__)
        cost = crossings(current, links)
        if cost < best_cost:
            best, best_cost = [list(c) for c in current], cost
    return best


def layered(
    nodes: Sequence[Key],
    edges: Sequence[tuple[Key, Key]],
    sizes: dict[Key, tuple[float, float]],
    *,
    gap_x: float = 48.0,
    gap_y: float = 18.0,
    sweeps: int = 8,
) -> Layout:
    """Lay ``nodes`` (in dependency order: each after its sources) out left to right.

    ``edges`` are ``(source, target)`` pairs between ``nodes``; ``sizes`` gives each box's
    ``(width, height)``. Returns a ``Layout`` whose boxes never overlap and whose long edges
    have reserved waypoints.
    """
    known = set(nodes)
    edges = [(a, b) for a, b in edges if a in known and b in known and a != b]
    depth: dict[Key, int] = {}
    ins: dict[Key, list[Key]] = {}
    for a, b in edges:
        ins.setdefault(b, []).append(a)
    for n in nodes:
        depth[n] = max((depth[a] + 1 for a in ins.get(n, []) if a in depth), default=0)
    n_cols = max(depth.values(), default=-1) + 1
    columns: list[list[Key]] = [[] for _ in range(n_cols)]
    for n in nodes:
        columns[depth[n]].append(n)
    links: list[tuple[Key, Key]] = []
    dummies: dict[tuple[Key, Key], list[Key]] = {}
    for a, b in edges:
        chain: list[Key] = [a]
        for c in range(depth[a] + 1, depth[b]):
            d = ("__dummy__", a, b, c)
            columns[c].append(d)
            chain.append(d)
        chain.append(b)
        dummies[(a, b)] = chain[1:-1]
        links += list(itertools.pairwise(chain))
    columns = _order(columns, links, sweeps)
    size = dict(sizes)
    widths = [max((size[k][0] for k in col if k in size), default=0.0) for col in columns]
    for c, col in enumerate(columns):
        for k in col:
            if k not in size:
                size[k] = (widths[c], _DUMMY_H)
    # stack each column; shift it so its boxes centre on their predecessors (straight chains)
    ys: dict[Key, float] = {}
    preds: dict[Key, list[Key]] = {}
    for a, b in links:
        preds.setdefault(b, []).append(a)
    for col in columns:
        y = 0.0
        for k in col:
            ys[k] = y
            y += size[k][1] + gap_y
        targets = [
            ys[p] + size[p][1] / 2 - (ys[k] + size[k][1] / 2)
            for k in col
            for p in preds.get(k, [])
            if p in ys
        ]
        if targets:
            shift = sorted(targets)[len(targets) // 2]  # the median pull
            for k in col:
                ys[k] += shift
    top = min(ys.values(), default=0.0)
    layout = Layout()
    x = 0.0
    for c, col in enumerate(columns):
        for k in col:
            w = size[k][0]
            layout.pos[k] = (x + (widths[c] - w) / 2, ys[k] - top)
            layout.column[k] = c
        x += widths[c] + gap_x
    for edge, chain in dummies.items():
        route = []
        for dummy in chain:
            dx, dy = layout.pos[dummy]
            mid = dy + _DUMMY_H / 2
            route.append(((dx, mid), (dx + size[dummy][0], mid)))
        layout.routes[edge] = route
    real = list(nodes)
    layout.width = max(x - gap_x, 0.0)
    layout.height = max((layout.pos[k][1] + size[k][1] for k in real), default=0.0)
    return layout


def edge_segments(
    start: Point, waypoints: Sequence[tuple[Point, Point]], end: Point
) -> list[Segment]:
    """Drawing segments of an edge from ``start`` (a box's right side) through the
    ``(left, right)`` waypoints of the columns it crosses to ``end`` (a box's left side):
    a cubic curve across each gap (it stays between the two columns' x), a line through
    each crossed column."""
    points = [start]
    for left, right in waypoints:
        points += [left, right]
    points.append(end)
    out: list[Segment] = []
    for i in range(0, len(points) - 1, 2):
        (x1, y1), (x2, y2) = points[i], points[i + 1]
        mid = (x1 + x2) / 2
        out.append(("C", ((x1, y1), (mid, y1), (mid, y2), (x2, y2))))
        if i + 2 < len(points):
            out.append(("L", (points[i + 1], points[i + 2])))
    return out
