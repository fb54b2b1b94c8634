"""Pictures of layer graphs: ``draw(graph, "graph.svg")``, PNG through Graphviz.

The SVG is written in pure Python with a layered layout (``layout.layered``): nodes in
columns left to right by dependency depth, ordered to reduce crossings, and every edge
routed through the gaps between columns (a long edge gets a reserved slot in each column
it passes), so no edge cuts through a box. Each box shows the layer's name, type and
output shape; arrows follow the data; ``roles={layer: "metric"}`` labels special nodes
(a model's loss, metrics and targets: ``metric · LossLayer ()``). Layers that share state
(made with ``reuse_with`` or ``share_state_with``) are joined by a dashed orange line
(class ``shared``); a ``tw.Module`` is drawn as a cluster, a titled frame holding its inner
layers. ``.png`` and ``.pdf`` use Graphviz's ``dot`` layout when the ``dot`` program is
installed, else the same layered layout drawn by matplotlib (``raster``); ``.dot`` writes
the Graphviz source.

Elements carry classes and ``data-*`` attributes, so tools and tests can read them:
``g.node[data-name][data-type][data-shape][data-role]``, ``path.edge[data-from][data-to]``,
``path.shared[data-from][data-to]``, ``g.cluster[data-name]``.

>>> import tensorflow as tf, tensorweave as tw, xml.etree.ElementTree as ET
>>> x = tw.Input(n_units=2, name="x")
>>> y = tw.Lambda(tf.square, x, name="y")
>>> svg = to_svg(tw.Graph.build(x, y))
>>> [n.get("data-name") for n in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}g")
...  if n.get("class") == "node"]
['x', 'y']
"""

from __future__ import annotations

import html
import itertools
import os
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tensorweave.drawing.layout import edge_segments, layered
from tensorweave.drawing.raster import render
from tensorweave.errors import TensorweaveError
from tensorweave.graph.graph import Graph
from tensorweave.graph.input import Input
from tensorweave.graph.layer import Layer
from tensorweave.graph.module import Module

__all__ = ["draw", "to_svg", "to_dot", "scene", "Scene", "edge_path", "DrawingError"]

_CHAR_W, _NODE_H, _GAP_X, _GAP_Y, _PAD = 7.0, 44.0, 48.0, 18.0, 14.0
_SHARED_COLOUR = "#e07b00"
_NS = "http://www.w3.org/2000/svg"


class DrawingError(TensorweaveError, RuntimeError):
    """A picture could not be made (e.g. PNG without Graphviz or matplotlib)."""


def _as_graph(graph: Any) -> Graph:
    if isinstance(graph, Graph):
        return graph
    if isinstance(graph, Layer):
        return Graph.build(inputs=None, outputs=graph)
    if hasattr(graph, "graph") and callable(graph.graph):  # a config's ConfigGraph
        built: Graph = graph.graph()
        return built
    raise TypeError(f"draw expects a tw.Graph or a layer, got {type(graph).__name__}")


def _label(node: Layer, role: str | None = None) -> tuple[str, str]:
    shape = "(" + ", ".join("?" if d is None else str(d) for d in node.shape)
    shape += ",)" if len(node.shape) == 1 else ")"
    kind = f"{type(node).__name__} {shape}"
    return node.name, f"{role} · {kind}" if role else kind


_ROLE_FILL = {"metric": "#fff4d6", "loss": "#fde2e2", "target": "#e3eefc"}
_STYLE = {"pad": _PAD, "node_h": _NODE_H, "shared": _SHARED_COLOUR, "fills": _ROLE_FILL}


@dataclass
class _Box:
    node: Layer
    x: float = 0.0
    y: float = 0.0
    w: float = 0.0
    h: float = _NODE_H
    children: list[_Box] = field(default_factory=list)  # a module's inner layers
    entries: frozenset[int] = frozenset()
    # waypoints of the edges into this box, by source id (``layout.Layout.routes``)
    routes: dict[int, list[tuple[tuple[float, float], tuple[float, float]]]] = field(
        default_factory=dict
    )
    parent: _Box | None = None


def _layout(
    nodes: list[Layer], skip: frozenset[int], roles: Mapping[int, str]
) -> tuple[list[_Box], float, float]:
    """Boxes for ``nodes`` (minus ``skip``) at relative positions; returns total size."""
    present = [n for n in nodes if id(n) not in skip]
    ids = {id(n) for n in present}
    boxes: dict[int, _Box] = {}
    for n in present:
        box = _Box(n)
        name, kind = _label(n, roles.get(id(n)))
        box.w = max(len(name), len(kind)) * _CHAR_W + 2 * _PAD
        if isinstance(n, Module):
            inner = list(n.inner_graph.nodes)
            entries = frozenset(id(i) for i in n.inner_graph.inputs)
            box.children, iw, ih = _layout(inner, entries, roles)
            for child in box.children:
                child.parent = box
            box.entries = entries
            box.w = max(box.w, iw + 2 * _PAD)
            box.h = ih + _NODE_H
        boxes[id(n)] = box
    edges = [(id(i), id(n)) for n in present for i in n.inputs if id(i) in ids]
    sizes: dict[Any, tuple[float, float]] = {k: (b.w, b.h) for k, b in boxes.items()}
    lay = layered([id(n) for n in present], edges, sizes, gap_x=_GAP_X, gap_y=_GAP_Y)
    for k, b in boxes.items():
        b.x, b.y = lay.pos[k]
    for (src, dst), route in lay.routes.items():
        boxes[int(dst)].routes[int(src)] = route  # type: ignore[call-overload]
    return [boxes[id(n)] for n in present], lay.width, lay.height


def _place(boxes: list[_Box], dx: float, dy: float, out: dict[int, _Box]) -> None:
    for b in boxes:
        b.x += dx
        b.y += dy
        b.routes = {
            k: [((lx + dx, ly + dy), (rx + dx, ry + dy)) for (lx, ly), (rx, ry) in r]
            for k, r in b.routes.items()
        }
        out[id(b.node)] = b
        if b.children:
            _place(b.children, b.x + _PAD, b.y + _NODE_H - _PAD / 2, out)


def edge_path(a: _Box, b: _Box) -> list[tuple[str, tuple[tuple[float, float], ...]]]:
    """The drawing segments of the edge ``a -> b`` (``layout.edge_segments``): through the
    waypoints the layout reserved; an edge into a module's inner layer follows the route
    into the module, then on to the inner layer."""
    y1 = a.y + min(a.h, _NODE_H) / 2
    y2 = b.y + min(b.h, _NODE_H) / 2
    route = b.routes.get(id(a.node))
    if route is None and b.parent is not None:
        route = b.parent.routes.get(id(a.node))
    start, end = (a.x + a.w, y1), (b.x, y2)
    if end[0] <= start[0]:  # a back-reference (from a cluster's own input): from below
        mid = (start[0] + end[0]) / 2
        return [("C", ((a.x + a.w / 2, a.y + a.h), (mid, a.y + a.h), (mid, y2), end))]
    return edge_segments(start, route or [], end)


def _d(segments: list[tuple[str, tuple[tuple[float, float], ...]]]) -> str:
    parts: list[str] = []
    for kind, pts in segments:
        if not parts:
            parts.append(f"M{pts[0][0]:.1f},{pts[0][1]:.1f}")
        parts.append(kind + " ".join(f"{x:.1f},{y:.1f}" for x, y in pts[1:]))
    return " ".join(parts)


@dataclass
class Scene:
    """A laid-out graph: the top-level boxes, every box by node id, the picture's size."""

    top: list[_Box]
    placed: dict[int, _Box]
    width: float
    height: float
    roles: dict[int, str]

    def edges(self) -> list[tuple[_Box, _Box]]:
        """Every drawn edge ``(source box, target box)``."""
        out = []
        for b in self.placed.values():
            for src in b.node.inputs:
                a = self.placed.get(id(src))
                if a is None or (b.children and id(src) in b.entries):
                    continue  # a module's inputs show as edges into its inner layers
                out.append((a, b))
        return out


def scene(graph: Any, *, title: str = "", roles: Mapping[Layer, str] | None = None) -> Scene:
    """Lay ``graph`` out (boxes and edge routes), with a 20px margin and room for a title."""
    g = _as_graph(graph)
    role_ids = {id(k): v for k, v in (roles or {}).items()}
    top, w, h = _layout(list(g.nodes), frozenset(), role_ids)
    placed: dict[int, _Box] = {}
    _place(top, 20.0, 20.0 + (24 if title else 0), placed)
    return Scene(top, placed, w, h, role_ids)


def to_svg(graph: Any, *, title: str = "", roles: Mapping[Layer, str] | None = None) -> str:
    """The SVG text of ``graph`` (a ``tw.Graph``, a layer, or a config's graph);
    ``roles`` labels nodes (``{metric_layer: "metric"}``)."""
    sc = scene(graph, title=title, roles=roles)
    top, placed, w, h = sc.top, sc.placed, sc.width, sc.height
    margin = 20.0
    parts: list[str] = []
    esc = html.escape

    def draw_box(b: _Box) -> None:
        role = sc.roles.get(id(b.node))
        name, kind = _label(b.node, role)
        shape = ", ".join("?" if d is None else str(d) for d in b.node.shape)
        attrs = (
            f'data-name="{esc(name)}" data-type="{esc(type(b.node).__name__)}" '
            f'data-shape="({esc(shape)})"' + (f' data-role="{esc(role)}"' if role else "")
        )
        if b.children:
            parts.append(f'<g class="cluster" {attrs}>')
            parts.append(
                f'<rect x="{b.x:.1f}" y="{b.y:.1f}" width="{b.w:.1f}" height="{b.h:.1f}" '
                'rx="8" fill="#f4f6fb" stroke="#6b7a99" stroke-dasharray="4 2"/>'
            )
            parts.append(
                f'<text x="{b.x + _PAD:.1f}" y="{b.y + 18:.1f}" font-weight="bold">'
                f"{esc(name)}: {esc(kind)}</text>"
            )
            for child in b.children:
                draw_box(child)
            parts.append("</g>")
            return
        fill = _ROLE_FILL.get(role or "", "#e8f3e8" if isinstance(b.node, Input) else "#ffffff")
        parts.append(f'<g class="node" {attrs}>')
        parts.append(
            f'<rect x="{b.x:.1f}" y="{b.y:.1f}" width="{b.w:.1f}" height="{b.h:.1f}" rx="6" '
            f'fill="{fill}" stroke="#33415c"/>'
        )
        parts.append(
            f'<text x="{b.x + b.w / 2:.1f}" y="{b.y + 18:.1f}" text-anchor="middle" '
            f'font-weight="bold">{esc(name)}</text>'
        )
        parts.append(
            f'<text x="{b.x + b.w / 2:.1f}" y="{b.y + 34:.1f}" text-anchor="middle" '
            f'fill="#555">{esc(kind)}</text>'
        )
        parts.append("</g>")

    for b in top:
        draw_box(b)
    # edges: every drawn node from each of its inputs that is drawn too
    for a, b in sc.edges():
        parts.append(
            f'<path class="edge" data-from="{esc(a.node.name)}" data-to="{esc(b.node.name)}" '
            f'd="{_d(edge_path(a, b))}" fill="none" stroke="#33415c" marker-end="url(#arrow)"/>'
        )
    # shared state: chain the layers that hold the same state object
    groups: dict[int, list[_Box]] = {}
    for b in placed.values():
        state = getattr(b.node, "state", None)
        if state is not None and not isinstance(b.node, Input):
            groups.setdefault(id(state), []).append(b)
    shared = 0
    under: list[str] = []  # drawn first: boxes hide the stretches that pass behind them
    for members in groups.values():
        for a, b in itertools.pairwise(members):
            shared += 1
            upper, lower = (a, b) if a.y <= b.y else (b, a)
            x1, y1 = upper.x + upper.w / 2, upper.y + min(upper.h, _NODE_H)
            x2, y2 = lower.x + lower.w / 2, lower.y
            if y2 <= y1:  # side by side: join the bottoms with an arc below them
                y2 = lower.y + min(lower.h, _NODE_H)
                d = f"M{x1:.1f},{y1:.1f} Q{(x1 + x2) / 2:.1f},{max(y1, y2) + 28:.1f} {x2:.1f},{y2:.1f}"
            else:  # one above the other: a line through the gap between them
                d = f"M{x1:.1f},{y1:.1f} C{x1:.1f},{y1 + 12:.1f} {x2:.1f},{y2 - 12:.1f} {x2:.1f},{y2:.1f}"
            under.append(
                f'<path class="shared" data-from="{esc(a.node.name)}" '
                f'data-to="{esc(b.node.name)}" d="{d}" fill="none" '
                f'stroke="{_SHARED_COLOUR}" stroke-width="2" stroke-dasharray="6 4">'
                "<title>shared state</title></path>"
            )
    legend_y = margin + (24 if title else 0) + h + 24
    if shared:
        parts.append(
            f'<g class="legend"><path d="M{margin:.0f},{legend_y:.0f} h30" '
            f'stroke="{_SHARED_COLOUR}" stroke-width="2" stroke-dasharray="6 4"/>'
            f'<text x="{margin + 36:.0f}" y="{legend_y + 4:.0f}" fill="#555">shared state '
            "(reuse_with / share_state_with)</text></g>"
        )
    width, height = w + 2 * margin, h + 2 * margin + (24 if title else 0) + 30
    head = [
        f'<svg xmlns="{_NS}" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="sans-serif" font-size="12">',
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#33415c"/>'
        "</marker></defs>",
        f'<rect width="{width:.0f}" height="{height:.0f}" fill="white"/>',
    ]
    if title:
        head.append(f'<text x="20" y="26" font-size="15" font-weight="bold">{esc(title)}</text>')
    return "\n".join([*head, *under, *parts, "</svg>"]) + "\n"


def to_dot(graph: Any, *, roles: Mapping[Layer, str] | None = None) -> str:
    """Graphviz source of ``graph``: nodes, edges, modules as clusters, shared state dashed."""
    g = _as_graph(graph)
    role_ids = {id(k): v for k, v in (roles or {}).items()}

    def q(text: str) -> str:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

    lines = ["digraph tensorweave {", "  rankdir=LR;", '  node [shape=box, fontname="sans"];']
    states: dict[int, list[Layer]] = {}
    edges: list[str] = []

    def emit(nodes: list[Layer], skip: frozenset[int], indent: str) -> None:
        for n in nodes:
            if id(n) in skip:
                continue
            name, kind = _label(n, role_ids.get(id(n)))
            if isinstance(n, Module):
                lines.append(f"{indent}subgraph {q('cluster_' + name)} {{")
                lines.append(f"{indent}  label={q(name + ': ' + kind)}; style=dashed;")
                entries = frozenset(id(i) for i in n.inner_graph.inputs)
                emit(list(n.inner_graph.nodes), entries, indent + "  ")
                lines.append(f"{indent}}}")
                out = n.output.name
                edges.append(f"  {q(out)} -> {q(name + '_out')} [style=dotted];")
                lines.append(f"{indent}{q(name + '_out')} [label={q(name)}, shape=point];")
                continue
            lines.append(f"{indent}{q(name)} [label={q(name + chr(10) + kind)}];")
            for i in n.inputs:
                src = i.name + "_out" if isinstance(i, Module) else i.name
                edges.append(f"  {q(src)} -> {q(name)};")
            if not isinstance(n, Input):
                states.setdefault(id(n.state), []).append(n)

    emit(list(g.nodes), frozenset(), "  ")
    lines += edges
    for members in states.values():
        for a, b in itertools.pairwise(members):
            lines.append(
                f"  {q(a.name)} -> {q(b.name)} [style=dashed, color={q(_SHARED_COLOUR)}, "
                "dir=none, constraint=false];"
            )
    lines.append("}")
    return "\n".join(lines) + "\n"


def draw(
    graph: Any,
    path: str | os.PathLike[str],
    *,
    title: str = "",
    roles: Mapping[Layer, str] | None = None,
) -> Path:
    """Write a picture of ``graph`` to ``path``: ``.svg`` (the layered layout, pure Python),
    ``.dot`` (Graphviz source), ``.png``/``.pdf`` with Graphviz's ``dot`` layout when it is
    installed, else the layered layout drawn by matplotlib (else ``DrawingError``)."""
    p = Path(path)
    suffix = p.suffix.lower()
    p.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".svg":
        p.write_text(to_svg(graph, title=title, roles=roles), encoding="utf-8")
    elif suffix == ".dot":
        p.write_text(to_dot(graph, roles=roles), encoding="utf-8")
    elif suffix in (".png", ".pdf"):
        dot = shutil.which("dot")
        if dot is None:
            sc = scene(graph, title=title, roles=roles)
            try:
                render(sc, p, title=title, label=_label, path_of=edge_path, style=_STYLE)
            except ImportError as err:
                raise DrawingError(
                    f"{suffix[1:].upper()} pictures need Graphviz's `dot` program or "
                    "matplotlib; neither is installed. Fix: pip install matplotlib (or install "
                    f"Graphviz), or write SVG instead: {p.with_suffix('.svg')}"
                ) from err
            return p
        result = subprocess.run(
            [dot, f"-T{suffix[1:]}", "-o", str(p)],
            input=to_dot(graph, roles=roles),
            text=True,
            capture_output=True,
            check=False,
        )
        if result.returncode != 0:
            raise DrawingError(f"Graphviz failed to draw {p}: {result.stderr.strip()}")
    else:
        raise DrawingError(f"cannot draw to {p.name!r}: use .svg, .png, .pdf or .dot")
    return p
