"""Readable views of runs: the list table, one run in full, and a comparison of runs
(config differences, metric curves side by side as a table and as a picture).

>>> print(table([["1", "a"], ["12", "bb"]], ["id", "name"]))
id  name
--  ----
1   a
12  bb
>>> config_differences([{"a": {"b": 1}, "c": 2}, {"a": {"b": 3}, "c": 2}])
{'a.b': [1, 3]}

``compare_runs(RUN, RUN, ...)`` is ``tensorweave runs compare`` in Python: a ``Comparison``
that prints as the command's text and shows in a notebook as HTML tables and the curves'
plot (``_repr_html_``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tensorweave_store.runs.filters import flatten
from tensorweave_store.runs.records import RunRecord

__all__ = [
    "table",
    "runs_table",
    "show_run",
    "config_differences",
    "compare_text",
    "plot_compare",
    "Comparison",
    "compare_runs",
    "fmt",
    "utc_text",
]

_SKIP = ("@versions", "@provider")


def utc_text(value: dt.datetime | None) -> str:
    """A timestamp as ``YYYY-MM-DD HH:MM:SS`` (UTC), or ``-``."""
    return value.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S") if value else "-"


def fmt(value: Any) -> str:
    """A value for a table cell (floats to 4 significant decimals)."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4f}" if abs(value) < 1e5 else f"{value:.4g}"
    return str(value)


def table(rows: Sequence[Sequence[Any]], header: Sequence[str]) -> str:
    """Columns padded to their widest cell, a rule under the header."""
    cells = [[fmt(c) for c in r] for r in rows]
    widths = [max(len(str(r[i])) for r in [list(header), *cells]) for i in range(len(header))]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in cells]
    return "\n".join(line.rstrip() for line in lines)


def _figure_columns(runs: Sequence[RunRecord], wanted: Sequence[str] = ()) -> list[str]:
    if wanted:
        return list(wanted)
    seen: dict[str, None] = {}
    for r in runs:
        for k in r.figures:
            if k.startswith("val_") or k == "loss":
                seen.setdefault(k, None)
    return sorted(seen, key=lambda k: (k != "loss", k != "val_loss", k))[:5]


def runs_table(runs: Sequence[RunRecord], columns: Sequence[str] = ()) -> str:
    """The ``runs list`` table: id, name, status, epochs, figures, tags, start time."""
    figs = _figure_columns(runs, columns)
    rows = [
        [
            r.id,
            r.name,
            r.status,
            r.epochs_done,
            *[r.values().get(k) for k in figs],
            ",".join(r.tags) or "-",
            utc_text(r.created_at),
        ]
        for r in runs
    ]
    return table(rows, ["id", "name", "status", "epochs", *figs, "tags", "started (UTC)"])


def show_run(
    run: RunRecord, metrics: Mapping[str, list[tuple[int, float]]], artifacts: Mapping[str, str]
) -> str:
    """One run in full: fields, figures, providers, versions, curves, artifacts."""
    lines = [
        f"run {run.id}: {run.name}  [{run.status}]",
        f"  directory: {run.run_dir or '-'}",
        f"  kind: {run.kind}   host: {run.host} pid {run.pid}   tags: {', '.join(run.tags) or '-'}",
        f"  started {utc_text(run.created_at)}  heartbeat {utc_text(run.heartbeat_at)}  "
        f"ended {utc_text(run.ended_at)} (UTC)",
    ]
    spread = run.summary or {}
    if spread.get("workers"):  # a run of several workers: one record, by the chief
        lines.append(
            f"  strategy: {spread.get('strategy')}, {spread.get('replicas')} replicas on "
            f"{len(spread['workers'])} workers: {', '.join(spread['workers'])} "
            f"(chief {spread.get('chief')})"
        )
    if run.error:
        lines.append(f"  error: {run.error}")
    if run.figures:
        lines.append(
            "  figures: " + "  ".join(f"{k} {fmt(v)}" for k, v in sorted(run.figures.items()))
        )
    if run.providers:
        lines.append("  components:")
        lines += [
            f"    {p}: {v['component']} from {v['provider']}"
            for p, v in sorted(run.providers.items())
        ]
    if run.versions:
        libs = {k: v for k, v in run.versions.items() if k != "plugins"}
        libs.update(run.versions.get("plugins") or {})
        lines.append("  versions: " + ", ".join(f"{k} {v}" for k, v in libs.items()))
    if metrics:
        names = sorted(metrics)
        epochs = sorted({e for s in metrics.values() for e, _ in s})
        by = {n: dict(metrics[n]) for n in names}
        lines.append("")
        lines.append(
            table([[e + 1, *[by[n].get(e) for n in names]] for e in epochs], ["epoch", *names])
        )
    if artifacts:
        lines.append("")
        lines.append(f"artifacts ({len(artifacts)} files in the blob store):")
        lines += [f"  {p}  sha256:{s[:16]}…" for p, s in sorted(artifacts.items())]
    return "\n".join(lines)


def config_differences(configs: Sequence[Mapping[str, Any]]) -> dict[str, list[Any]]:
    """``{dotted path: [value per config]}`` for every path whose values differ
    (providers and library versions left out)."""
    flats = [
        {k: v for k, v in flatten(c).items() if not any(s in k for s in _SKIP)} for c in configs
    ]
    keys = sorted(set().union(*flats)) if flats else []
    out: dict[str, list[Any]] = {}
    for key in keys:
        values = [f.get(key, "(absent)") for f in flats]
        if any(v != values[0] for v in values[1:]):
            out[key] = values
    return out


def compare_text(
    runs: Sequence[RunRecord], metrics: Sequence[Mapping[str, list[tuple[int, float]]]]
) -> str:
    """Config differences, final figures and each metric's curve, runs side by side."""
    heads = [f"run {r.id} ({r.name})" for r in runs]
    diffs = config_differences([r.config for r in runs])
    parts = ["config differences:" if diffs else "config differences: none"]
    if diffs:
        parts.append(table([[k, *v] for k, v in diffs.items()], ["path", *heads]))
    figs = _figure_columns(runs)
    parts += [
        "",
        "final figures:",
        table([[k, *[r.figures.get(k) for r in runs]] for k in figs], ["figure", *heads]),
    ]
    names = sorted(set().union(*[set(m) for m in metrics]) - {"learning_rate"})
    for name in names:
        series = [dict(m.get(name, [])) for m in metrics]
        epochs = sorted(set().union(*[set(s) for s in series]))
        parts += [
            "",
            f"{name} by epoch:",
            table([[e + 1, *[s.get(e) for s in series]] for e in epochs], ["epoch", *heads]),
        ]
    return "\n".join(parts)


def plot_compare(
    runs: Sequence[RunRecord],
    metrics: Sequence[Mapping[str, list[tuple[int, float]]]],
    output: str | Path,
) -> Path:
    """One panel per metric, one line per run (matplotlib; .png, .svg or .pdf)."""
    out = Path(output)
    _compare_figure(runs, metrics).savefig(out)
    return out


def _compare_figure(
    runs: Sequence[RunRecord], metrics: Sequence[Mapping[str, list[tuple[int, float]]]]
) -> Any:
    """The curves' figure, made without pyplot (no backend switched: a notebook's inline
    plots stay as they are)."""
    from matplotlib.figure import Figure

    names = sorted(set().union(*[set(m) for m in metrics]) - {"learning_rate"})
    cols = min(3, max(1, len(names)))
    rows = (len(names) + cols - 1) // cols or 1
    fig = Figure(figsize=(4.2 * cols, 3.2 * rows))
    axes = fig.subplots(rows, cols, squeeze=False)
    for ax, name in zip(axes.flat, names, strict=False):
        for run, m in zip(runs, metrics, strict=True):
            pts = m.get(name, [])
            if pts:
                ax.plot(
                    [e + 1 for e, _ in pts],
                    [v for _, v in pts],
                    marker=".",
                    label=f"{run.id} {run.name}",
                )
        ax.set_title(name)
        ax.set_xlabel("epoch")
        ax.legend(fontsize="small")
    for ax in list(axes.flat)[len(names) :]:
        ax.axis("off")
    fig.tight_layout()
    return fig


class Comparison:
    """Runs side by side (``compare_runs``): ``str()`` is ``tensorweave runs compare``'s
    text; a notebook shows ``_repr_html_``: the config differences and final figures as
    tables, and each metric's curve per run (an inline SVG, when matplotlib is installed).
    ``runs`` and ``metrics`` hold the records and per-epoch values."""

    def __init__(
        self,
        runs: Sequence[RunRecord],
        metrics: Sequence[Mapping[str, list[tuple[int, float]]]],
    ) -> None:
        self.runs = list(runs)
        self.metrics = list(metrics)

    def __str__(self) -> str:
        return compare_text(self.runs, self.metrics)

    def __repr__(self) -> str:
        return f"Comparison(runs={[r.id for r in self.runs]})"

    def _repr_html_(self) -> str:
        import html

        heads = [f"run {r.id} ({r.name})" for r in self.runs]

        def html_table(rows: list[list[Any]], header: list[str]) -> str:
            head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
            body = "".join(
                "<tr>" + "".join(f"<td>{html.escape(fmt(c))}</td>" for c in row) + "</tr>"
                for row in rows
            )
            return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

        diffs = config_differences([r.config for r in self.runs])
        figures = _figure_columns(self.runs)
        parts = [
            "<h4>config differences</h4>",
            html_table([[k, *v] for k, v in diffs.items()], ["path", *heads])
            if diffs
            else "<p>none</p>",
            "<h4>final figures</h4>",
            html_table(
                [[k, *[r.figures.get(k) for r in self.runs]] for k in figures],
                ["figure", *heads],
            ),
            self._curves_svg(),
        ]
        return "<div>" + "".join(parts) + "</div>"

    def _curves_svg(self) -> str:
        if not self.runs:
            return ""
        try:
            import matplotlib  # noqa: F401 (the plot is optional: the plot extra)
        except ImportError:
            return ""
        import io

        buffer = io.BytesIO()
        _compare_figure(self.runs, self.metrics).savefig(buffer, format="svg")
        svg = buffer.getvalue().decode("utf-8")
        return "<h4>curves</h4>" + svg[svg.index("<svg") :]


def compare_runs(*refs: int | str, store: Any = None) -> Comparison:
    """The runs ``refs`` (ids, names or run directories) of ``store`` (default: the one
    ``tensorweave runs compare`` opens) side by side: a ``Comparison``.

    >>> import tempfile, tensorweave_store as tws
    >>> empty = tws.open_store(f"sqlite:///{tempfile.mkdtemp()}/s.db", cached=False)
    >>> compare_runs(store=empty).runs
    []
    """
    if store is None:
        from tensorweave_store.store import open_store

        store = open_store()
    runs = [store.run(r) for r in refs]
    return Comparison(runs, [store.metrics(r.id) for r in runs])
