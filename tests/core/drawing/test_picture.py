"""SVG pictures of graphs: nodes, edges, shared-state marks and module clusters."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave.drawing.picture import DrawingError, draw, to_dot, to_svg

NS = "{http://www.w3.org/2000/svg}"


def _parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def _by_class(root: ET.Element, tag: str, cls: str) -> list[ET.Element]:
    return [e for e in root.iter(f"{NS}{tag}") if e.get("class") == cls]


@pytest.fixture
def graph() -> tw.Graph:
    x = tw.Input(n_units=3, name="x")
    x2 = tw.Input(n_units=3, name="x2")
    h = tw.Lambda(tf.nn.relu, x, name="h")
    h2 = h.reuse_with(x2, name="h2")
    inner = tw.Lambda(tf.square, h, name="sq")
    block = tw.Module(h, inner + 1.0, name="block")
    y = tw.Lambda(lambda a, b: a + b, block, h2, name="y")
    return tw.Graph.build(inputs=[x, x2], outputs=y)


def test_svg_has_every_node_with_name_type_and_shape(graph: tw.Graph) -> None:
    root = _parse(to_svg(graph, title="demo"))
    nodes = {n.get("data-name"): n for n in _by_class(root, "g", "node")}
    assert {"x", "x2", "h", "h2", "sq", "y"} <= set(nodes)
    assert nodes["x"].get("data-type") == "Input"
    assert nodes["x"].get("data-shape") == "(?, 3)"
    assert nodes["h"].get("data-type") == "Lambda"
    texts = ["".join(t.itertext()) for t in nodes["x"].iter(f"{NS}text")]
    assert texts == ["x", "Input (?, 3)"]


def test_edges_follow_the_data(graph: tw.Graph) -> None:
    root = _parse(to_svg(graph))
    edges = {(e.get("data-from"), e.get("data-to")) for e in _by_class(root, "path", "edge")}
    assert ("x", "h") in edges and ("x2", "h2") in edges
    assert ("h", "sq") in edges  # into the module's inner layer
    assert ("block", "y") in edges and ("h2", "y") in edges
    assert ("h", "block") not in edges  # shown by the inner edge instead


def test_shared_state_is_marked_dashed(graph: tw.Graph) -> None:
    root = _parse(to_svg(graph))
    shared = _by_class(root, "path", "shared")
    assert [(s.get("data-from"), s.get("data-to")) for s in shared] == [("h", "h2")]
    assert shared[0].get("stroke-dasharray")


def test_modules_are_clusters_holding_inner_nodes(graph: tw.Graph) -> None:
    root = _parse(to_svg(graph))
    (cluster,) = _by_class(root, "g", "cluster")
    assert cluster.get("data-name") == "block" and cluster.get("data-type") == "Module"
    inner = {n.get("data-name") for n in _by_class(cluster, "g", "node")}
    assert "sq" in inner and "x" not in inner and "h" not in inner
    rect = cluster.find(f"{NS}rect")
    sq = next(n for n in _by_class(cluster, "g", "node") if n.get("data-name") == "sq")
    r = sq.find(f"{NS}rect")
    assert float(rect.get("x")) <= float(r.get("x"))
    assert float(r.get("x")) + float(r.get("width")) <= float(rect.get("x")) + float(
        rect.get("width")
    )


def test_layout_is_left_to_right_by_depth(graph: tw.Graph) -> None:
    root = _parse(to_svg(graph))
    xs = {
        n.get("data-name"): float(n.find(f"{NS}rect").get("x"))
        for n in root.iter(f"{NS}g")
        if n.get("class") in ("node", "cluster")
    }
    assert xs["x"] < xs["h"] < xs["block"] < xs["y"]


def test_draw_writes_files_and_png_needs_graphviz(graph: tw.Graph, tmp_path: Path) -> None:
    svg = draw(graph, tmp_path / "g.svg")
    assert _parse(svg.read_text()).tag == f"{NS}svg"
    dot = draw(graph, tmp_path / "g.dot").read_text()
    assert "cluster_block" in dot and "style=dashed" in dot
    assert to_dot(graph).startswith("digraph")
    # Graphviz's layout when `dot` is installed, else the layered layout via matplotlib
    png = draw(graph, tmp_path / "g.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(DrawingError, match=r"use \.svg"):
        draw(graph, tmp_path / "g.bmp")


def test_draw_accepts_a_layer() -> None:
    x = tw.Input(n_units=2, name="x")
    root = _parse(to_svg(tw.Lambda(tf.abs, x, name="a")))
    assert [n.get("data-name") for n in _by_class(root, "g", "node")] == ["x", "a"]


def _inside(p: tuple[float, float], r: ET.Element, inset: float = 1.5) -> bool:
    x, y, w, h = (float(r.get(k)) for k in ("x", "y", "width", "height"))
    return x + inset < p[0] < x + w - inset and y + inset < p[1] < y + h - inset


def _samples(d: str) -> list[tuple[float, float]]:
    """Points along an SVG path of M, C and L commands."""
    import re

    out: list[tuple[float, float]] = []
    cur = (0.0, 0.0)
    for cmd, args in re.findall(r"([MCL])([^MCL]*)", d):
        pts = [tuple(map(float, p.split(","))) for p in args.split()]
        if cmd == "M":
            cur = pts[0]
        elif cmd == "L":
            out += [
                (cur[0] + (pts[0][0] - cur[0]) * t / 20, cur[1] + (pts[0][1] - cur[1]) * t / 20)
                for t in range(21)
            ]
            cur = pts[0]
        else:
            (x1, y1), (x2, y2), (x3, y3) = pts
            for i in range(41):
                t = i / 40
                a, b, c, e = (1 - t) ** 3, 3 * t * (1 - t) ** 2, 3 * t * t * (1 - t), t**3
                out.append(
                    (a * cur[0] + b * x1 + c * x2 + e * x3, a * cur[1] + b * y1 + c * y2 + e * y3)
                )
            cur = (x3, y3)
    return out


def test_edges_do_not_cut_through_boxes_and_metrics_are_labelled() -> None:
    """A model-like graph with skip connections and long edges (a target used at the end)."""
    tw.reset_names()
    x = tw.Input(n_units=4, name="x")
    t = tw.Input(n_units=4, name="t")
    h1 = tw.Lambda(tf.nn.relu, x, name="h1")
    h2 = tw.Lambda(tf.tanh, h1, name="h2")
    h3 = tw.Lambda(lambda a, b: a + b, h2, x, name="h3")  # skip connection over h1, h2
    out = tw.Lambda(tf.sigmoid, h3, name="out")
    loss = tw.Lambda(lambda a, b: tf.reduce_mean((a - b) ** 2), out, t, name="loss")
    acc = tw.Lambda(lambda a, b: tf.reduce_mean(tf.abs(a - b)), h1, t, name="mae")
    graph = tw.Graph.build(inputs=[x, t], outputs=[loss, acc])
    root = _parse(to_svg(graph, roles={acc: "metric", loss: "loss", t: "target"}))
    nodes = {n.get("data-name"): n for n in _by_class(root, "g", "node")}
    assert nodes["mae"].get("data-role") == "metric"
    assert "metric · " in "".join(nodes["mae"].itertext())
    rects = {name: n.find(f"{NS}rect") for name, n in nodes.items()}
    edges = _by_class(root, "path", "edge")
    assert len(edges) == 9
    for e in edges:
        ends = {e.get("data-from"), e.get("data-to")}
        for p in _samples(e.get("d")):
            cut = [n for n, r in rects.items() if n not in ends and _inside(p, r)]
            assert not cut, f"edge {ends} cuts through {cut} at {p}"
