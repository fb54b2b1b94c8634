"""PNG/PDF pictures of a laid-out graph without Graphviz: ``picture.scene`` drawn by matplotlib.

The same boxes, labels, edge routes and shared-state marks as the SVG (``drawing.to_svg``),
so a picture made here and one made by the SVG agree. matplotlib is optional: without it
(and without Graphviz) ``render`` says how to get either.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tensorweave.graph.input import Input

__all__ = ["render"]

_DPI = 100


def render(
    sc: Any,
    path: Path,
    *,
    title: str,
    label: Callable[[Any, str | None], tuple[str, str]],
    path_of: Callable[[Any, Any], list[tuple[str, tuple[tuple[float, float], ...]]]],
    style: dict[str, Any],
) -> None:
    """Draw the ``drawing.Scene`` ``sc`` into ``path`` (.png or .pdf): boxes labelled by
    ``label(node, role)``, edges along ``path_of(a, b)``, in ``style``'s sizes and colours."""
    import matplotlib  # an ImportError here: drawing says to install matplotlib or Graphviz

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyBboxPatch, PathPatch
    from matplotlib.path import Path as MPath

    width, height = sc.width + 40, sc.height + 70 + (24 if title else 0)
    fig = plt.figure(figsize=(width / _DPI, height / _DPI), dpi=_DPI)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(height, 0)  # y down, as in the SVG
    ax.axis("off")
    if title:
        ax.text(20, 26, title, fontsize=12, fontweight="bold", va="baseline")

    def box(b: Any) -> None:
        role = sc.roles.get(id(b.node))
        name, kind = label(b.node, role)
        if b.children:
            ax.add_patch(
                FancyBboxPatch(
                    (b.x, b.y),
                    b.w,
                    b.h,
                    boxstyle="round,pad=0,rounding_size=8",
                    fc="#f4f6fb",
                    ec="#6b7a99",
                    ls="--",
                    zorder=1,
                )
            )
            ax.text(
                b.x + style["pad"],
                b.y + 18,
                f"{name}: {kind}",
                fontsize=9,
                fontweight="bold",
                zorder=5,
            )
            for child in b.children:
                box(child)
            return
        fill = style["fills"].get(role or "", "#e8f3e8" if isinstance(b.node, Input) else "#ffffff")
        ax.add_patch(
            FancyBboxPatch(
                (b.x, b.y),
                b.w,
                b.h,
                boxstyle="round,pad=0,rounding_size=6",
                fc=fill,
                ec="#33415c",
                zorder=3,
            )
        )
        cx = b.x + b.w / 2
        ax.text(cx, b.y + 18, name, ha="center", fontsize=9, fontweight="bold", zorder=5)
        ax.text(cx, b.y + 34, kind, ha="center", fontsize=8, color="#555", zorder=5)

    for b in sc.top:
        box(b)
    for a, b in sc.edges():
        verts: list[tuple[float, float]] = []
        codes: list[Any] = []
        for kind, pts in path_of(a, b):
            if not verts:
                verts.append(pts[0])
                codes.append(MPath.MOVETO)
            verts += list(pts[1:])
            codes += [MPath.CURVE4] * 3 if kind == "C" else [MPath.LINETO]
        ax.add_patch(PathPatch(MPath(verts, codes), fc="none", ec="#33415c", lw=1.2, zorder=4))
        end, before = verts[-1], verts[-2]
        ax.annotate(
            "",
            xy=end,
            xytext=(end[0] - 6, before[1] if abs(before[0] - end[0]) < 6 else end[1]),
            arrowprops={"arrowstyle": "-|>", "color": "#33415c", "lw": 1.2},
            zorder=4,
        )
    groups: dict[int, list[Any]] = {}
    for b in sc.placed.values():
        state = getattr(b.node, "state", None)
        if state is not None and not isinstance(b.node, Input):
            groups.setdefault(id(state), []).append(b)
    for members in groups.values():
        for a, b in itertools.pairwise(members):
            ax.plot(
                [a.x + a.w / 2, b.x + b.w / 2],
                [a.y + min(a.h, style["node_h"]), b.y],
                color=style["shared"],
                ls="--",
                lw=1.5,
                zorder=2,
            )
    fig.savefig(path, dpi=_DPI)
    plt.close(fig)
