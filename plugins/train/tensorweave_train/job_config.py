"""The job's config: its sections and settings, checked as a whole, built into a ``Job``.

See ``tensorweave_train.job`` for the sections. ``load_config`` reads a built-in or a file
with overrides, ``check_settings`` lists every problem of the plain settings,
``validate_job`` checks the whole config (components included) before anything is built,
and ``build_job`` builds the model, optimizer, data and callbacks.

>>> sorted(DEFAULTS)
['chars', 'digits']
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw
import tensorweave.config as twc
from tensorweave_train import guards, rundir
from tensorweave_train.model import Model

__all__ = [
    "DEFAULTS",
    "FILLED",
    "SECTIONS",
    "TrainSettings",
    "RunSettings",
    "Job",
    "config_path",
    "load_config",
    "check_settings",
    "validate_job",
    "build_job",
    "settings_dict",
]

DEFAULTS = {"digits": "digits.toml", "chars": "chars.toml"}
FILLED = "config.json"


@dataclass
class TrainSettings:
    """The ``[train]`` section."""

    epochs: int = 10
    batch_size: int = 32
    seed: int = 0
    shuffle: bool = True
    limit: int | None = None
    checkpoint_every: int = 1
    jit_compile: bool = False  # compile the steps with XLA (``Model(jit_compile=True)``)


@dataclass
class RunSettings:
    """The ``[run]`` section."""

    name: str = "run"
    dir: str | None = None
    tensorboard: bool = True  # TensorBoard event files in the run directory's tensorboard/


SECTIONS: dict[str, type] = {"train": TrainSettings, "run": RunSettings}


def config_path(name: str | None) -> Path:
    """A config file: ``None`` or a built-in name (``digits``, ``chars``), or a path."""
    if name is None or name in DEFAULTS:
        ref = resources.files("tensorweave_train") / "configs" / DEFAULTS[name or "digits"]
        return Path(str(ref))
    return Path(name)


def load_config(
    name: str | None, overrides: Sequence[str] | Mapping[str, Any] = ()
) -> dict[str, Any]:
    """The config (built-in or file), with overrides applied and ``${...}`` interpolated."""
    return twc.load(config_path(name), overrides=overrides)


_POSITIVE = {"train.epochs", "train.batch_size", "train.checkpoint_every", "train.limit"}


def _close(word: str, choices: Sequence[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" Did you mean {close[0]!r}?" if close else ""


def check_settings(cfg: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Problems in the plain sections (``[train]``, ``[run]``: types, positive sizes, a
    plain run name) and the job's layout (``guards.check_layout``), by dotted path."""
    errors: list[tuple[str, str]] = []
    for section, cls in SECTIONS.items():
        values = cfg.get(section, {})
        if not isinstance(values, Mapping):
            errors.append((section, f"expected a table, got {values!r}"))
            continue
        params = {p.name: p for p in twc.params_of(cls, skip=frozenset({"self"}))}
        for key, value in values.items():
            path = f"{section}.{key}"
            if key not in params:
                errors.append(
                    (
                        path,
                        f"unknown setting;{_close(key, list(params))} settings: {', '.join(params)}",
                    )
                )
                continue
            problem = twc.check_type(value, params[key].hint)
            if problem:
                errors.append((path, problem))
            elif path in _POSITIVE and value is not None and value <= 0:
                errors.append((path, f"must be a positive integer, got {value!r}"))
            elif path == "run.name":
                why = rundir.check_run_name(value)
                if why:
                    errors.append((path, why))
    return errors + guards.check_layout(cfg)


def _settings(cfg: Mapping[str, Any], section: str) -> Any:
    return SECTIONS[section](**dict(cfg.get(section, {})))


@dataclass
class Job:
    """Everything built from a job config."""

    config: dict[str, Any]
    data: Any
    graph: Any
    model: Model
    settings: TrainSettings
    run: RunSettings
    callbacks: list[Any] = field(default_factory=list)

    def split(self, name: str) -> dict[str, np.ndarray]:
        """The ``train``/``valid`` arrays restricted to the model's feeds."""
        arrays = self.data[name] if isinstance(self.data, Mapping) else getattr(self.data, name)
        feeds = [f.name for f in self.model.feeds]
        missing = [f for f in feeds if f not in arrays]
        if missing:
            raise twc.ConfigError(
                [
                    (
                        "model",
                        f"the data has no field {m!r} for the node {m!r}; fields: {sorted(arrays)}",
                    )
                    for m in missing
                ]
            )
        out = {f: arrays[f] for f in feeds}
        if name == "train" and self.settings.limit:
            out = {k: v[: self.settings.limit] for k, v in out.items()}
        return out


def validate_job(cfg: Mapping[str, Any]) -> None:
    """Raise one ``ConfigError`` listing every problem of a job config (settings,
    components, parameters, graph), or return when it can be built."""
    errors = check_settings(cfg) + twc.validate(cfg)
    if errors:
        raise twc.ConfigError(list(dict.fromkeys(errors)))


def build_job(cfg: Mapping[str, Any]) -> Job:
    """Validate every section (all problems at once), then build data, graph and model."""
    validate_job(cfg)
    settings = _settings(cfg, "train")
    tf.random.set_seed(settings.seed)
    np.random.seed(settings.seed)
    built = twc.resolve({k: v for k, v in cfg.items() if k not in SECTIONS})
    graph = built["model"]
    if not isinstance(graph, twc.ConfigGraph):
        raise twc.ConfigError([("model", "expected a graph block: a [model.nodes] table")])
    metrics = graph.section.get("metrics", {})
    if isinstance(metrics, (str, list)):
        names = [metrics] if isinstance(metrics, str) else metrics
        metrics = {n: n for n in names}
    optimizer = built.get("optimizer")
    if optimizer is not None and not hasattr(optimizer, "apply_gradients"):
        raise twc.ConfigError([("optimizer", f"expected an optimizer, got {optimizer!r}")])
    try:
        model = Model(
            inputs=graph.layers("inputs"),
            outputs=graph.layers("outputs"),
            targets=graph.layers("targets"),
            loss=graph[graph.section["loss"]],
            metrics={k: graph[v] for k, v in metrics.items()},
            optimizer=optimizer,
            jit_compile=settings.jit_compile or None,
        )
    except (tw.TensorweaveError, TypeError, ValueError) as err:
        raise twc.ConfigError([("model", f"cannot make the model: {err}")]) from err
    return Job(
        config=dict(cfg),
        data=built["data"],
        graph=graph,
        model=model,
        settings=settings,
        run=_settings(cfg, "run"),
        callbacks=list(built.get("callbacks") or []),
    )


def settings_dict(job: Job) -> dict[str, Any]:
    """The train settings as a dict (for summaries)."""
    return asdict(job.settings)
