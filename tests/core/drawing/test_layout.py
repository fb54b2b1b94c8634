"""The layered layout: columns by depth, no overlapping boxes, long edges through reserved
slots, fewer crossings after ordering."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tensorweave.drawing.layout import crossings, edge_segments, layered


@st.composite
def dags(
    draw: st.DrawFn,
) -> tuple[list[int], list[tuple[int, int]], dict[int, tuple[float, float]]]:
    n = draw(st.integers(1, 12))
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))
    edges = sorted({(min(a, b), max(a, b)) for a, b in edges if a != b})
    sizes = {i: (draw(st.floats(20, 120)), draw(st.floats(20, 60))) for i in range(n)}
    return list(range(n)), edges, sizes


def _overlap(a, b) -> bool:
    (ax, ay, aw, ah), (bx, by, bw, bh) = a, b
    return ax < bx + bw and bx < ax + aw and ay < by + bh and by < ay + ah


@settings(max_examples=60, deadline=None)
@given(dags())
def test_boxes_never_overlap_and_edges_go_forward_through_free_slots(dag) -> None:
    nodes, edges, sizes = dag
    lay = layered(nodes, edges, sizes)
    rects = {k: (*lay.pos[k], *sizes[k]) for k in nodes}
    for i in nodes:
        for j in nodes:
            if i < j:
                assert not _overlap(rects[i], rects[j])
    for a, b in edges:
        assert lay.column[a] < lay.column[b]
        route = lay.routes[(a, b)]
        assert len(route) == lay.column[b] - lay.column[a] - 1
        for (lx, ly), (rx, _) in route:  # each waypoint's stretch is free of boxes
            for k, (x, y, w, h) in rects.items():
                assert not (x < rx and lx < x + w and y <= ly <= y + h), (a, b, k)
    assert lay.width >= max(w for w, _ in sizes.values()) - 1e-6


def test_ordering_removes_an_avoidable_crossing() -> None:
    # a0 -> b1 and a1 -> b0 cross in the given order; the sweeps untangle them
    nodes = ["a0", "a1", "b0", "b1"]
    edges = [("a0", "b1"), ("a1", "b0")]
    assert crossings([["a0", "a1"], ["b0", "b1"]], edges) == 1
    lay = layered(nodes, edges, {k: (30.0, 20.0) for k in nodes})
    by_y = sorted(nodes, key=lambda k: (lay.column[k], lay.pos[k][1]))
    assert crossings([by_y[:2], by_y[2:]], edges) == 0


def test_segments_curve_across_gaps_and_run_straight_through_columns() -> None:
    segs = edge_segments((0, 0), [((10, 5), (30, 5))], (40, 9))
    assert [k for k, _ in segs] == ["C", "L", "C"]
    assert segs[1][1] == ((10, 5), (30, 5))
    # a curve's control points stay between its ends' x: it never leaves the gap
    for _kind, pts in segs:
        xs = [p[0] for p in pts]
        assert min(xs) == min(pts[0][0], pts[-1][0]) and max(xs) == max(pts[0][0], pts[-1][0])
