"""The figures a run recorded (its ``summary.json``) and the table that compares two runs'.

A figure is a number of the summary: the final validation figures, the last epoch's
figures, the step count, and the weights' checksum (equal or not). Within ``tolerance``
means ``|recorded - reproduced| <= tolerance * max(1, |recorded|)`` (absolute for figures up
to 1, relative above); the checksum and the step count must be equal.

>>> rows = compare({"valid": {"loss": 0.5}, "steps": 3}, {"valid": {"loss": 0.5000001}, "steps": 3}, 1e-6)
>>> [(r.figure, r.within) for r in rows]
[('valid loss', True), ('steps', True)]
>>> print(table_text(rows, 1e-6))  # doctest: +NORMALIZE_WHITESPACE
figure      recorded  reproduced  difference  within 1e-06
valid loss  0.5       0.5000001   1e-07       yes
steps       3         3           0           yes
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tensorweave_train.runs.environment_report import table

__all__ = ["Row", "compare", "figures_of", "table_text"]


def figures_of(summary: Mapping[str, Any]) -> dict[str, Any]:
    """The figures of a run's summary, by name."""
    out: dict[str, Any] = {f"valid {k}": v for k, v in (summary.get("valid") or {}).items()}
    history = summary.get("history") or []
    if history:
        last = history[-1]
        out.update({f"last epoch {k}": v for k, v in last.items() if k not in ("epoch", "step")})
    if summary.get("steps") is not None:
        out["steps"] = summary["steps"]
    if summary.get("weights_sha256"):
        out["weights sha256"] = summary["weights_sha256"]
    return out


@dataclass(frozen=True)
class Row:
    """One figure compared."""

    figure: str
    recorded: Any
    reproduced: Any
    difference: Any
    within: bool


def _close(a: Any, b: Any, tolerance: float) -> tuple[Any, bool]:
    if isinstance(a, str) or isinstance(b, str) or a is None or b is None:
        return ("same" if a == b else "differs"), a == b
    diff = float(b) - float(a)
    if isinstance(a, int) and isinstance(b, int):
        return int(diff), diff == 0
    if math.isnan(float(a)) and math.isnan(float(b)):
        return 0.0, True
    return diff, abs(diff) <= tolerance * max(1.0, abs(float(a)))


def compare(
    recorded: Mapping[str, Any], reproduced: Mapping[str, Any], tolerance: float
) -> list[Row]:
    """Every figure of the ``recorded`` summary beside the ``reproduced`` one's."""
    a, b = figures_of(recorded), figures_of(reproduced)
    rows = []
    for name in [*a, *(k for k in b if k not in a)]:
        diff, within = _close(a.get(name), b.get(name), tolerance)
        rows.append(Row(name, a.get(name), b.get(name), diff, within))
    return rows


def _show(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, str) and len(value) == 64:  # a checksum
        return value[:12]
    if isinstance(value, float):
        return f"{value:.7g}" if value != 0 else "0"
    return str(value)


def table_text(rows: list[Row], tolerance: float) -> str:
    """The comparison as aligned columns."""
    head = ["figure", "recorded", "reproduced", "difference", f"within {tolerance:g}"]
    body = [
        [r.figure, _show(r.recorded), _show(r.reproduced), _show(r.difference), "yes" if r.within else "NO"]
        for r in rows
    ]  # fmt: skip
    return table([head, *body])
