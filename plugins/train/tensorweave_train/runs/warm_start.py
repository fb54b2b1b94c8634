"""Warm starts (as tfaip's): load some weights of a trained run into a new model.

``warm_start(model, source)`` copies every variable of the run ``source`` (a run
directory, or ``NAME@VERSION`` with tensorweave-store installed) into the variable of
``model`` with the same name and returns a ``WarmStartReport`` saying which variables were
loaded and which were skipped, and why. ``variable_names(model)`` names every variable
``LAYER/PATH`` (``h1/w``, ``lstm/cell/kernel``): the layer's name (a config's node name)
and the attribute path inside its state:

- ``include``/``exclude``: glob patterns over the new model's names (``h1/*``, ``logits``;
  a bare layer name matches all its variables); a variable must match an ``include``
  pattern (when any is given) and no ``exclude`` pattern;
- ``rename``: ``"old=new"`` rules applied to the source's names before matching (the
  source's ``encoder/w`` loads into ``enc/w`` with ``"encoder=enc"``);
- a variable with no source of its name, or of another shape or dtype, is skipped.

On the command line: ``tensorweave train CONFIG --warm-start RUN|NAME@VERSION [--include P]
[--exclude P] [--rename old=new]``, which adds the ``WarmStart.v1`` callback to the run's
config (so ``config.json`` says where the weights came from). The callback loads the
weights when training starts from step 0, never when a run resumes from its checkpoint.

>>> report = WarmStartReport("runs/a", loaded=[("h1/w", "h1/w")],
...                          skipped=[("logits/w", "shape mismatch: source (8, 10), here (8, 3)")])
>>> print(report)
warm start from runs/a: 1 loaded, 1 skipped
  loaded   h1/w
  skipped  logits/w: shape mismatch: source (8, 10), here (8, 3)
"""

from __future__ import annotations

import difflib
import fnmatch
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tensorflow as tf

import tensorweave as tw
import tensorweave.config as twc
from tensorweave_train.loop.events import Callback, Event, TrainState, on_train
from tensorweave_train.loop.model import Model
from tensorweave_train.runs.job import build_model
from tensorweave_train.runs.run import Run

__all__ = [
    "variable_names",
    "WarmStartReport",
    "warm_start",
    "plan",
    "check",
    "WarmStart",
    "parse_rename",
    "add_to_config",
]


def _paths(obj: Any, prefix: tuple[str, ...], seen: set[int]) -> list[tuple[str, Any]]:
    """(path, variable) pairs under a layer state, walking modules, lists and dicts."""
    if id(obj) in seen:
        return []
    seen.add(id(obj))
    if isinstance(obj, tf.Variable):
        return [("/".join(prefix), obj)]
    out: list[tuple[str, Any]] = []
    if isinstance(obj, tw.Layer):
        return _paths(obj.state, prefix, seen)
    if isinstance(obj, tf.Module):
        items = [(k, v) for k, v in vars(obj).items() if not k.startswith("_")]
    elif isinstance(obj, Mapping):
        items = [(str(k), v) for k, v in obj.items()]
    elif isinstance(obj, (list, tuple)):
        items = [(str(i), v) for i, v in enumerate(obj)]
    else:
        return []
    for key, value in sorted(items, key=lambda kv: kv[0]):
        out += _paths(value, (*prefix, key), seen)
    return out


def variable_names(model: Model) -> dict[str, Any]:
    """Every variable of ``model`` by ``LAYER/PATH`` name (shared states named once).

    >>> import tensorweave as tw, tensorflow as tf
    >>> from tensorweave_train import Model
    >>> class Scale(tw.Layer):
    ...     def __init__(self, x, name=None):
    ...         super().__init__(x, shape=x.shape, name=name)
    ...     def init_state(self):
    ...         self.state.w = tf.Variable(tf.ones(self.shape[1:]))
    ...     def compute(self, x):
    ...         return x * self.state.w
    >>> x = tw.Input(n_units=2, name="x")
    >>> sorted(variable_names(Model(inputs=x, outputs=Scale(x, name="s"))))
    ['s/w']
    """
    seen: set[int] = set()
    out: dict[str, Any] = {}
    for layer in model.layers:
        for path, var in _paths(layer.state, (layer.name,), seen):
            out.setdefault(path, var)
    return out


@dataclass
class WarmStartReport:
    """What a warm start did: ``loaded`` as (name here, name in the source) pairs,
    ``skipped`` as (name here, reason) pairs, ``unused`` source names nothing took."""

    source: str
    loaded: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    unused: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Plain data (for JSON and the store)."""
        return {
            "source": self.source,
            "loaded": {here: there for here, there in self.loaded},
            "skipped": dict(self.skipped),
            "unused": list(self.unused),
        }

    def __str__(self) -> str:
        lines = [
            f"warm start from {self.source}: {len(self.loaded)} loaded, {len(self.skipped)} skipped"
        ]
        for here, there in self.loaded:
            lines.append(f"  loaded   {here}" + (f" <- {there}" if there != here else ""))
        for here, why in self.skipped:
            lines.append(f"  skipped  {here}: {why}")
        if self.unused:
            lines.append(f"  unused in the source: {', '.join(self.unused)}")
        return "\n".join(lines)


def parse_rename(rules: Sequence[str] | Mapping[str, str] | None) -> list[tuple[str, str]]:
    """``["old=new", ...]`` (or ``{old: new}``) as pairs; raises ``ValueError`` on a bad rule.

    >>> parse_rename(["encoder=enc", "head/=out/"])
    [('encoder', 'enc'), ('head/', 'out/')]
    """
    if not rules:
        return []
    if isinstance(rules, Mapping):
        return [(str(k), str(v)) for k, v in rules.items()]
    out = []
    for rule in rules:
        old, sep, new = str(rule).partition("=")
        if not sep or not old:
            raise ValueError(
                f"rename rule {rule!r} must read old=new (e.g. encoder=enc): the source's "
                "variable names containing `old` load into names with `new` instead."
            )
        out.append((old, new))
    return out


def _matches(name: str, patterns: Sequence[str]) -> str | None:
    for p in patterns:
        if fnmatch.fnmatchcase(name, p) or fnmatch.fnmatchcase(name, f"{p}/*"):
            return p
    return None


def _renamed(name: str, rules: list[tuple[str, str]]) -> str:
    for old, new in rules:
        name = name.replace(old, new)
    return name


def plan(
    model: Any,
    source_model: Any,
    *,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    rename: Sequence[str] | Mapping[str, str] | None = None,
    label: str = "the source",
) -> tuple[WarmStartReport, list[tuple[Any, Any]]]:
    """What a warm start of ``model`` from ``source_model`` would load: the report and the
    ``(variable here, variable there)`` pairs to copy. Nothing is assigned."""
    rules = parse_rename(rename)
    theirs: dict[str, tuple[str, Any]] = {}
    for name, var in variable_names(source_model).items():
        theirs.setdefault(_renamed(name, rules), (name, var))
    report = WarmStartReport(label)
    pairs: list[tuple[Any, Any]] = []
    used: set[str] = set()
    for name, var in variable_names(model).items():
        if include and _matches(name, include) is None:
            report.skipped.append((name, f"not included (--include {' '.join(include)})"))
            continue
        hit = _matches(name, exclude)
        if hit is not None:
            report.skipped.append((name, f"excluded by {hit!r}"))
            continue
        if name not in theirs:
            close = difflib.get_close_matches(name, list(theirs), n=1)
            hint = f"; closest there: {close[0]} (rename with old=new)" if close else ""
            report.skipped.append((name, f"not found in the source{hint}"))
            continue
        there, value = theirs[name]
        if tuple(value.shape) != tuple(var.shape):
            report.skipped.append(
                (
                    name,
                    f"shape mismatch: source {tuple(value.shape.as_list())}, "
                    f"here {tuple(var.shape.as_list())}",
                )
            )
            continue
        if value.dtype != var.dtype:
            report.skipped.append(
                (name, f"dtype mismatch: source {value.dtype.name}, here {var.dtype.name}")
            )
            continue
        pairs.append((var, value))
        used.add(there)
        report.loaded.append((name, there))
    report.unused = sorted(n for n, _ in theirs.values() if n not in used)
    return report, pairs


def _nothing_loaded(report: WarmStartReport) -> tw.TensorweaveError:
    return tw.TensorweaveError(
        f"warm start loaded no variable from {report.source}.\n{report}\nFix: check "
        "--include/--exclude patterns and --rename old=new rules against the names above."
    )


def warm_start(
    model: Any,
    source: str | Path | Any,
    *,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    rename: Sequence[str] | Mapping[str, str] | None = None,
    require_any: bool = True,
) -> WarmStartReport:
    """Load the weights of ``source`` into ``model`` by variable name; see the module doc.

    ``source`` is a run reference or an opened ``Run``. With ``require_any`` (default)
    loading nothing is an error: the patterns or names are wrong.
    """
    run = source if isinstance(source, Run) else Run.open(source)
    label = run.reference + (f" ({run.path})" if str(run.path) != run.reference else "")
    report, pairs = plan(
        model, run.model(), include=include, exclude=exclude, rename=rename, label=label
    )
    if require_any and not pairs:
        raise _nothing_loaded(report)
    for var, value in pairs:
        var.assign(value)
    return report


def check(
    cfg: Mapping[str, Any],
    source: str | Path,
    *,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    rename: Sequence[str] | Mapping[str, str] | None = None,
) -> WarmStartReport:
    """Whether a warm start of the job ``cfg`` from ``source`` would load anything, from the
    two configs alone (no data, no checkpoint read): ``TensorweaveError`` if not. What
    ``tensorweave train --warm-start`` runs before it makes the run directory."""
    run = Run.open(source)
    try:
        ours = build_model(cfg)
    except twc.ConfigError:
        return WarmStartReport(str(source))  # the job's own check lists every problem
    report, pairs = plan(
        ours,
        build_model(run.config()),
        include=include,
        exclude=exclude,
        rename=rename,
        label=str(source) + (f" ({run.path})" if str(run.path) != str(source) else ""),
    )
    if not pairs:
        raise _nothing_loaded(report)
    return report


class WarmStart(Callback):
    """Warm-start the model when training starts from step 0 (never on resume).

    Args:
        source: a run directory or ``NAME@VERSION``.
        include: glob patterns of variables to load (default all).
        exclude: glob patterns of variables not to load.
        rename: ``"old=new"`` rules applied to the source's variable names.
        quiet: do not print the report.
    """

    priority = -100  # before anything reads the weights

    def __init__(
        self,
        source: str,
        include: list[str] | None = None,
        exclude: list[str] | None = None,
        rename: list[str] | None = None,
        quiet: bool = False,
    ) -> None:
        parse_rename(rename)  # a bad rule fails now, not at the start of training
        self.source = source
        self.include = list(include or [])
        self.exclude = list(exclude or [])
        self.rename = list(rename or [])
        self.quiet = quiet
        self.triggers = (on_train(at="start"),)
        self.report: WarmStartReport | None = None

    def __call__(self, event: Event, state: TrainState) -> None:
        if state.step > 0:
            return  # resumed from a checkpoint: its weights win
        self.report = warm_start(
            state.model,
            self.source,
            include=self.include,
            exclude=self.exclude,
            rename=self.rename,
        )
        if not self.quiet:
            print(self.report)


def add_to_config(
    cfg: Mapping[str, Any],
    source: str,
    *,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    rename: Sequence[str] = (),
    quiet: bool = False,
) -> dict[str, Any]:
    """``cfg`` with a ``WarmStart.v1`` callback appended (what ``--warm-start`` does).

    >>> add_to_config({}, "runs/a", exclude=["logits"])["callbacks"]
    [{'@callbacks': 'WarmStart.v1', 'source': 'runs/a', 'exclude': ['logits']}]
    """
    parse_rename(list(rename))
    promise: dict[str, Any] = {"@callbacks": "WarmStart.v1", "source": str(source)}
    for key, values in (("include", include), ("exclude", exclude), ("rename", rename)):
        if values:
            promise[key] = list(values)
    if quiet:
        promise["quiet"] = True
    out = dict(cfg)
    out["callbacks"] = [*list(cfg.get("callbacks") or []), promise]
    return out
