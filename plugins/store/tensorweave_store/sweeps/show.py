"""What a sweep found: the best trials as a table, and a plot of the search.

``summary_text(study)`` counts the trials by state (a killed trial that was retried shows
as ``failed (retried)``) and lists the best finished ones with their values and run
directories; ``plot_study(study, "sweep.png")`` draws the objective of every trial with
the best so far, and the objective against each searched value (log axes for log
distributions). The plot needs matplotlib (``pip install tensorweave-store[plot]``).

>>> _fmt(0.000123456), _fmt(64), _fmt("relu")
('0.0001235', '64', 'relu')
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import tensorweave as tw

__all__ = ["summary_text", "plot_study", "best_trials"]


def _fmt(v: Any) -> str:
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def best_trials(study: Any, top: int = 5) -> list[Any]:
    """The ``top`` finished trials, best first."""
    import optuna

    done = [
        t for t in study.get_trials(deepcopy=False) if t.state == optuna.trial.TrialState.COMPLETE
    ]
    maximize = study.direction == optuna.study.StudyDirection.MAXIMIZE
    return sorted(done, key=lambda t: t.value, reverse=maximize)[:top]


def summary_text(study: Any, top: int = 5) -> str:
    """The study's state counts and its best trials, as a table."""

    from tensorweave_store.sweeps.workers import retry_class

    retry = retry_class()
    trials = study.get_trials(deepcopy=False)
    retried = {retry.retried_trial_number(t) for t in trials} - {None}
    states = Counter(
        "failed (retried)" if t.number in retried else t.state.name.lower() for t in trials
    )
    metric = study.user_attrs.get("metric", "value")
    direction = study.direction.name.lower()
    counts = ", ".join(f"{n} {s}" for s, n in sorted(states.items()))
    lines = [f"study {study.study_name} ({direction} {metric}): {len(trials)} trials: {counts}"]
    best = best_trials(study, top)
    if not best:
        lines.append("  no finished trial yet")
        return "\n".join(lines)
    params = list(best[0].params)
    header = ["trial", metric, *params, "run"]
    rows = [
        [
            str(t.number),
            f"{t.value:.4f}",
            *(_fmt(t.params.get(p)) for p in params),
            str(t.user_attrs.get("run_dir", "")),
        ]
        for t in best
    ]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines.append("best trials:")
    for row in [header, *rows]:
        lines.append("  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))
    return "\n".join(lines)


def plot_study(study: Any, path: str | Path) -> Path | None:
    """Draw the search into ``path`` (.png/.svg/.pdf); ``None`` when nothing finished yet."""
    import optuna

    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as err:  # pragma: no cover - matplotlib is in requirements-dev
        raise tw.TensorweaveError(
            "tensorweave sweep show draws with matplotlib: pip install matplotlib"
        ) from err
    done = [
        t for t in study.get_trials(deepcopy=False) if t.state == optuna.trial.TrialState.COMPLETE
    ]
    if not done:
        return None
    done.sort(key=lambda t: t.number)
    maximize = study.direction == optuna.study.StudyDirection.MAXIMIZE
    metric = study.user_attrs.get("metric", "value")
    params = list(done[0].params)
    fig, axes = plt.subplots(1, 1 + len(params), figsize=(4.2 * (1 + len(params)), 3.6))
    axes = list(axes) if len(params) else [axes]
    xs = [t.number for t in done]
    ys = [float(t.value) for t in done]
    best, run = [], None
    for y in ys:
        run = y if run is None else (max(run, y) if maximize else min(run, y))
        best.append(run)
    axes[0].scatter(xs, ys, s=16, label="trial")
    axes[0].step(xs, best, where="post", color="tab:red", label="best so far")
    axes[0].set(xlabel="trial", ylabel=metric, title=study.study_name)
    axes[0].legend(fontsize=8)
    dists = done[0].distributions
    for ax, name in zip(axes[1:], params, strict=True):
        values = [t.params.get(name) for t in done]
        numeric = all(isinstance(v, (int, float)) for v in values)
        ax.scatter(values if numeric else [str(v) for v in values], ys, s=16)
        if numeric and getattr(dists.get(name), "log", False):
            ax.set_xscale("log")
        ax.set(xlabel=name, ylabel=metric)
    fig.tight_layout()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out
