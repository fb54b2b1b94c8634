"""``History``: what ``Model.train`` returns, as a list of epoch records and as Keras's.

It is a list with one dict per finished epoch (``{"epoch": 1.0, "step": ..., "loss": ...,
"val_loss": ...}``; ``state`` is the loop's final ``TrainState``), and, as Keras's
``History``: ``history`` (a dict of lists: ``loss``, ``val_loss``, each metric,
``learning_rate``), ``epoch`` (the epoch numbers) and ``params``. Epochs are numbered from
1, as the progress display, ``log.csv`` and TensorBoard's epoch axis number them.

>>> h = History([{"epoch": 1.0, "step": 4.0, "loss": 0.5}, {"epoch": 2.0, "step": 8.0, "loss": 0.25}])
>>> h.history, h.epoch
({'loss': [0.5, 0.25]}, [1, 2])

In a notebook it shows as a table of the epochs (and a small plot of each value's curve
once there are two epochs): ``_repr_html_``.

>>> "<td>0.2500</td>" in h._repr_html_() and "<svg" in h._repr_html_()
True
"""

from __future__ import annotations

import html
import math
from typing import Any

__all__ = ["History"]

_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")


class History(list):  # type: ignore[type-arg]
    """One dict of values per finished epoch; ``state`` is the loop's final ``TrainState``."""

    state: Any
    params: dict[str, Any]

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.params = {}

    @property
    def history(self) -> dict[str, list[float]]:
        """Keras's ``History.history``: every value by name, one entry per epoch."""
        out: dict[str, list[float]] = {}
        for record in self:
            for key, value in record.items():
                if key not in ("epoch", "step"):
                    out.setdefault(key, []).append(value)
        return out

    @property
    def epoch(self) -> list[int]:
        """The numbers of the finished epochs (from 1, as displayed and logged)."""
        return [int(r["epoch"]) for r in self]

    def _repr_html_(self) -> str:
        """The epochs as an HTML table (a notebook shows it), with a plot of the curves."""
        if not self:
            return "<p>History: no finished epoch</p>"
        names = list(self.history)
        head = "".join(f"<th>{html.escape(n)}</th>" for n in ["epoch", *names])
        rows = []
        for record in self:
            cells = [f"<td>{int(record['epoch'])}</td>"]
            cells += [f"<td>{_number(record.get(n))}</td>" for n in names]
            rows.append(f"<tr>{''.join(cells)}</tr>")
        table = f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
        return f"<div>{_curves_svg(self.epoch, self.history)}{table}</div>"


def _number(value: Any) -> str:
    return "" if value is None else f"{float(value):.4f}"


def _curves_svg(epochs: list[int], curves: dict[str, list[float]]) -> str:
    """One small SVG line chart per curve (no plotting library); empty below two epochs."""
    if len(epochs) < 2:
        return ""
    width, height, pad = 220, 120, 22
    charts = []
    for i, (name, values) in enumerate(curves.items()):
        finite = [v for v in values if v is not None and math.isfinite(v)]
        if len(finite) < 2:
            continue
        low, high = min(finite), max(finite)
        span = (high - low) or 1.0

        step_x = (width - 2 * pad) / (epochs[-1] - epochs[0])
        step_y = (height - 2 * pad) / span
        points = " ".join(
            f"{pad + (e - epochs[0]) * step_x:.1f},{height - pad - (v - low) * step_y:.1f}"
            for e, v in zip(epochs, values, strict=False)
            if v is not None and math.isfinite(v)
        )
        color = _COLORS[i % len(_COLORS)]
        charts.append(
            f'<svg width="{width}" height="{height}" role="img" '
            f'aria-label="{html.escape(name)} by epoch">'
            f'<text x="{pad}" y="14" font-size="12">{html.escape(name)}</text>'
            f'<polyline fill="none" stroke="{color}" stroke-width="2" points="{points}"/>'
            f'<text x="{pad}" y="{height - 4}" font-size="10">{low:.4g} to {high:.4g}, '
            f"epochs {epochs[0]}-{epochs[-1]}</text></svg>"
        )
    return "".join(charts)
