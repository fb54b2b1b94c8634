"""``tensorweave plot RUN``: a run's loss and metric curves, from its ``log.csv``, as Keras
users draw them.

One panel per quantity with the training and validation curves together (``loss`` and
``val_loss`` in the first panel, ``accuracy`` and ``val_accuracy`` in the next…), the epoch
(numbered from 1, as the display and ``log.csv``) on the x axis. ``.svg`` charts are
written in pure Python; ``.png``/``.pdf`` use matplotlib (an optional dependency:
``pip install matplotlib``).

>>> panels({"loss": [1.0, 0.5], "val_loss": [1.1, 0.7], "val_accuracy": [0.8, 0.9]})
{'loss': ['loss', 'val_loss'], 'accuracy': ['val_accuracy']}
>>> svg = svg_curves({"loss": [1.0, 0.5], "val_loss": [1.1, 0.7]}, epochs=[1, 2])
>>> svg.count('class="series"'), svg.count('class="panel"')
(2, 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import tensorweave as tw
from tensorweave.cli.command import EXIT_OK, UsageError
from tensorweave_data import BadFileError, read_csv
from tensorweave_train.commands.arguments import need_run_dir, parse_command_line, run_parser

__all__ = ["cmd_plot", "read_log", "read_epochs", "panels", "svg_curves", "plot_log"]

_COLOURS = {"train": "#1f77b4", "val": "#d62728"}


def read_log(path: str | Path) -> dict[str, list[float]]:
    """Every logged value by name (``epoch``, ``step`` and ``learning_rate`` left out)."""
    rows = read_csv(path, fix=_DAMAGED)  # a bad file: BadFileError naming it (exit code 2)
    return {
        k: [_number(r[k], path, k) for r in rows if r.get(k) not in (None, "")]
        for k in (rows[0] if rows else {})
        if k not in ("epoch", "step", "learning_rate")
    }


_DAMAGED = "restore it from a backup of the run, or train the run again"


def _number(text: str, path: str | Path, column: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise BadFileError(
            path, f"its column {column!r} holds {text[:40]!r}, not a number", _DAMAGED, damaged=True
        ) from None


def read_epochs(path: str | Path) -> list[float]:
    """The ``epoch`` column of a ``log.csv`` (numbered from 1), or ``1..N`` without one."""
    rows = read_csv(path, fix=_DAMAGED)
    if rows and "epoch" in rows[0]:
        return [_number(r["epoch"], path, "epoch") for r in rows]
    return [float(i) for i in range(1, len(rows) + 1)]


def panels(series: dict[str, list[float]]) -> dict[str, list[str]]:
    """The series grouped by quantity: ``x`` and ``val_x`` share the panel ``x``; the loss
    panel comes first."""
    out: dict[str, list[str]] = {}
    for name in series:
        out.setdefault(name.removeprefix("val_"), []).append(name)
    return dict(sorted(out.items(), key=lambda kv: kv[0] != "loss"))


def _xs(epochs: Sequence[float] | None, n: int) -> list[float]:
    return list(epochs)[-n:] if epochs is not None and len(epochs) >= n else list(range(1, n + 1))


def plot_log(log: str | Path, output: str | Path) -> tuple[Path, dict[str, list[float]]]:
    """Plot ``log`` into ``output`` (.svg always; .png/.pdf with matplotlib)."""
    series = read_log(log)
    epochs = read_epochs(log)
    out = Path(output)
    if out.suffix.lower() == ".svg":
        out.write_text(svg_curves(series, epochs=epochs))
        return out, series
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import MaxNLocator
    except ImportError as err:
        raise tw.TensorweaveError(
            f"{out.suffix} plots need matplotlib (pip install matplotlib); .svg works "
            f"without it: -o {out.with_suffix('.svg')}"
        ) from err
    groups = panels(series)
    fig, axes = plt.subplots(1, max(len(groups), 1), figsize=(4.2 * max(len(groups), 1), 3.4))
    axes = list(axes) if len(groups) > 1 else [axes]
    for ax, (title, names) in zip(axes, groups.items()):
        for name in names:
            ys = series[name]
            kind = "val" if name.startswith("val_") else "train"
            ax.plot(_xs(epochs, len(ys)), ys, marker="o", ms=3, color=_COLOURS[kind], label=name)
        ax.set_xlabel("epoch")
        ax.set_title(title)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=80)
    plt.close(fig)
    return out, series


def svg_curves(series: dict[str, list[float]], *, epochs: Sequence[float] | None = None) -> str:
    """A dependency-free SVG line chart: one panel per quantity (training and validation
    curves together), epochs on x."""
    w, h, pad = 320, 210, 44
    groups = {k: [n for n in v if series[n]] for k, v in panels(series).items()}
    groups = {k: v for k, v in groups.items() if v}
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w * max(len(groups), 1)}" '
        f'height="{h}" font-family="sans-serif" font-size="11">'
    ]
    for i, (title, names) in enumerate(groups.items()):
        x0 = i * w
        values = [y for n in names for y in series[n]]
        lo, hi = min(values), max(values)
        span = (hi - lo) or 1.0
        n_max = max(len(series[n]) for n in names)
        xs_all = _xs(epochs, n_max)
        first, last = xs_all[0], xs_all[-1]
        xspan = (last - first) or 1.0
        bottom = h - pad
        parts.append(
            f'<g class="panel" data-name="{title}"><text x="{x0 + pad}" y="18" '
            f'font-weight="bold">{title}</text>'
            f'<rect x="{x0 + pad}" y="{pad - 16}" width="{w - 2 * pad}" '
            f'height="{h - 2 * pad + 16}" fill="none" stroke="#ccc"/>'
            f'<text x="{x0 + 2}" y="{pad - 12}">{hi:.3g}</text>'
            f'<text x="{x0 + 2}" y="{bottom}">{lo:.3g}</text>'
            f'<text x="{x0 + pad}" y="{bottom + 14}">{first:g}</text>'
            f'<text x="{x0 + w - pad}" y="{bottom + 14}" text-anchor="end">{last:g}</text>'
            f'<text x="{x0 + w / 2}" y="{bottom + 28}" text-anchor="middle">epoch</text></g>'
        )
        for j, name in enumerate(names):
            ys = series[name]
            xs = _xs(epochs, len(ys))
            pts = " ".join(
                f"{x0 + pad + (x - first) / xspan * (w - 2 * pad):.1f},"
                f"{bottom - (y - lo) / span * (h - 2 * pad):.1f}"
                for x, y in zip(xs, ys)
            )
            colour = _COLOURS["val" if name.startswith("val_") else "train"]
            parts.append(
                f'<g class="series" data-name="{name}" data-last="{ys[-1]:.6g}">'
                f'<text x="{x0 + w - pad}" y="{32 + 12 * j}" text-anchor="end" '
                f'fill="{colour}">{name} (last {ys[-1]:.4g})</text>'
                f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="2"/></g>'
            )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def cmd_plot(argv: list[str]) -> int:
    """``tensorweave plot``."""
    parser = run_parser("plot", "Plot a run's loss and metric curves from its log.csv.")
    parser.add_argument("-o", "--output", default="curves.svg", help=".svg, or .png/.pdf")
    args, _ = parse_command_line(argv, parser)
    if args.help:
        parser.print_help()
        return EXIT_OK
    log = need_run_dir(args, parser) / "log.csv"
    if not log.is_file():
        raise UsageError(f"tensorweave plot: {log} does not exist (is it a run directory?)")
    out, series = plot_log(log, args.output)
    print(f"wrote {out} ({', '.join(series)})")
    return EXIT_OK
