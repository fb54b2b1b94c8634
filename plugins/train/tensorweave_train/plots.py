"""Loss and metric curves of a run, from its ``log.csv``.

``.svg`` charts are written in pure Python; ``.png``/``.pdf`` use matplotlib (an optional
dependency: ``pip install matplotlib``).

>>> svg = svg_curves({"loss": [1.0, 0.5], "val_accuracy": [0.8, 0.9]})
>>> svg.count('class="series"')
2
"""

from __future__ import annotations

import csv
from pathlib import Path

import tensorweave as tw

__all__ = ["read_log", "svg_curves", "plot_log"]


def read_log(path: str | Path) -> dict[str, list[float]]:
    """Every logged value by name (``epoch``, ``step`` and ``learning_rate`` left out)."""
    with Path(path).open(newline="") as f:
        rows = list(csv.DictReader(f))
    return {
        k: [float(r[k]) for r in rows if r.get(k) not in (None, "")]
        for k in (rows[0] if rows else {})
        if k not in ("epoch", "step", "learning_rate")
    }


def plot_log(log: str | Path, output: str | Path) -> tuple[Path, dict[str, list[float]]]:
    """Plot ``log`` into ``output`` (.svg always; .png/.pdf with matplotlib)."""
    series = read_log(log)
    out = Path(output)
    if out.suffix.lower() == ".svg":
        out.write_text(svg_curves(series))
        return out, series
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as err:
        raise tw.TensorweaveError(
            f"{out.suffix} plots need matplotlib (pip install matplotlib); .svg works "
            f"without it: -o {out.with_suffix('.svg')}"
        ) from err
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for name, ys in series.items():
        ax = axes[0] if "loss" in name else axes[1]
        ax.plot(range(1, len(ys) + 1), ys, label=name)
    for ax, title in zip(axes, ("loss", "metrics"), strict=True):
        ax.set_xlabel("epoch")
        ax.set_title(title)
        ax.legend()
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)
    return out, series


def svg_curves(series: dict[str, list[float]]) -> str:
    """A dependency-free SVG line chart: one panel per series, epochs on x."""
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"]
    w, h, pad = 320, 200, 40
    items = [(k, v) for k, v in series.items() if v]
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w * max(len(items), 1)}" '
        f'height="{h}" font-family="sans-serif" font-size="11">'
    ]
    for i, (name, ys) in enumerate(items):
        x0 = i * w
        lo, hi = min(ys), max(ys)
        span = (hi - lo) or 1.0
        pts = " ".join(
            f"{x0 + pad + (j / max(len(ys) - 1, 1)) * (w - 2 * pad):.1f},"
            f"{h - pad - (y - lo) / span * (h - 2 * pad):.1f}"
            for j, y in enumerate(ys)
        )
        parts.append(
            f'<g class="series" data-name="{name}" data-last="{ys[-1]:.6g}">'
            f'<text x="{x0 + pad}" y="20" font-weight="bold">{name} '
            f"(last {ys[-1]:.4g})</text>"
            f'<rect x="{x0 + pad}" y="{pad}" width="{w - 2 * pad}" height="{h - 2 * pad}"'
            ' fill="none" stroke="#ccc"/>'
            f'<text x="{x0 + 2}" y="{pad + 4}">{hi:.3g}</text>'
            f'<text x="{x0 + 2}" y="{h - pad}">{lo:.3g}</text>'
            f'<polyline points="{pts}" fill="none" stroke="{colours[i % 6]}" '
            'stroke-width="2"/></g>'
        )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
