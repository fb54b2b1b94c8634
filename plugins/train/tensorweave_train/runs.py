"""Open a finished run by reference: its config, its trained model and its processors.

A reference is a run directory (what ``tensorweave train`` printed) or, with a store
installed, ``NAME@VERSION`` (``digits@3``, ``digits@latest``, ``digits@production``): any
plugin implementing the ``tensorweave_resolve_run(reference)`` hook turns it into a local
directory with the run-directory layout (``config.json``, ``checkpoints/``,
``processors.json``). Warm starts and ensembles load their models through here.

``open_run`` rebuilds only the ``[model]`` and ``[optimizer]`` of the run's config (not its
data: no dataset is loaded) and restores the newest valid checkpoint.

``variable_names(model)`` names every variable of a model ``LAYER/PATH`` (``h1/w``,
``lstm/cell/kernel``): the layer's name (a config's node name) and the attribute path
inside its state. Names are what warm starts match, include, exclude and rename.

>>> import tensorweave as tw, tensorflow as tf
>>> class Scale(tw.Layer):
...     def __init__(self, x, name=None):
...         super().__init__(x, shape=x.shape, name=name)
...     def init_state(self):
...         self.state.w = tf.Variable(tf.ones(self.shape[1:]))
...     def compute(self, x):
...         return x * self.state.w
>>> from tensorweave_train.model import Model
>>> x = tw.Input(n_units=2, name="x")
>>> sorted(variable_names(Model(inputs=x, outputs=Scale(x, name="s"))))
['s/w']
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tensorflow as tf

import tensorweave as tw
import tensorweave.config as twc

__all__ = ["OpenRun", "resolve_run", "open_run", "variable_names", "model_from_config"]

FILLED = "config.json"


def resolve_run(reference: str | Path) -> Path:
    """The local run directory ``reference`` names (a directory, or ``NAME@VERSION``
    through the ``tensorweave_resolve_run`` hook); raises ``TensorweaveError`` with the fix.
    """
    from tensorweave_train.hooks import resolve_run as hook_resolve

    where = Path(reference)
    if (where / FILLED).is_file():
        return where
    ref = str(reference)
    path = hook_resolve(ref)
    if (path / FILLED).is_file():
        return path
    if path != where:
        raise tw.TensorweaveError(
            f"{ref!r} resolved to {path}, which is not a run directory (no {FILLED})."
        )
    if "@" in ref and not where.exists():
        raise tw.TensorweaveError(
            f"cannot resolve {ref!r}: no installed plugin resolves NAME@VERSION references. "
            "Fix: install tensorweave-store (pip install tensorweave-store) and register the "
            "model (tensorweave models register RUN NAME), or pass a run directory."
        )
    raise tw.TensorweaveError(
        f"{ref!r} is not a run directory (no {FILLED} in it). Fix: pass the directory "
        "`tensorweave train` printed (or NAME@VERSION with tensorweave-store installed)."
    )


def model_from_config(cfg: Mapping[str, Any]) -> Any:
    """A ``Model`` built from a job config's ``[model]`` and ``[optimizer]`` only (no data)."""
    from tensorweave_train.model import Model

    parts = {k: cfg[k] for k in ("model", "optimizer") if k in cfg}
    errors = twc.validate(parts)
    if errors:
        raise twc.ConfigError(errors)
    built = twc.resolve(parts)
    graph = built["model"]
    metrics = graph.section.get("metrics", {})
    if isinstance(metrics, (str, list)):
        metrics = {n: n for n in ([metrics] if isinstance(metrics, str) else metrics)}
    loss = graph.section.get("loss")
    return Model(
        inputs=graph.layers("inputs"),
        outputs=graph.layers("outputs"),
        targets=graph.layers("targets") if "targets" in graph.section else None,
        loss=graph[loss] if loss else None,
        metrics={k: graph[v] for k, v in metrics.items()},
        optimizer=built.get("optimizer"),
    )


@dataclass
class OpenRun:
    """A finished run, opened: where it is, its config, its restored model, its processors."""

    path: Path
    reference: str
    config: dict[str, Any]
    model: Any
    processors: dict[str, Any] = field(default_factory=dict)
    step: int = 0


def open_run(reference: str | Path) -> OpenRun:
    """Resolve ``reference``, rebuild its model and restore its newest valid checkpoint."""
    from tensorweave_train.checkpoint import Checkpointer

    where = resolve_run(reference)
    cfg = twc.load(where / FILLED)
    model = model_from_config(cfg)
    model.build()
    # the same layout as ``restore._restored`` (the job's CheckpointCallback writes there)
    snap = Checkpointer(where / "checkpoints").restore(model)
    if snap is None:
        snap = Checkpointer(where).restore(model)
    if snap is None:
        raise tw.TensorweaveError(
            f"{where} has no valid checkpoint to load. Fix: train it until at least one "
            "checkpoint is written (or resume it: tensorweave resume RUN_DIR)."
        )
    procs_file = where / "processors.json"
    procs = json.loads(procs_file.read_text()) if procs_file.is_file() else {}
    return OpenRun(where, str(reference), dict(cfg), model, procs, int(snap.get("step", 0)))


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


def variable_names(model: Any) -> dict[str, Any]:
    """Every variable of ``model`` by ``LAYER/PATH`` name (shared states named once)."""
    seen: set[int] = set()
    out: dict[str, Any] = {}
    for layer in model.layers:
        for path, var in _paths(layer.state, (layer.name,), seen):
            out.setdefault(path, var)
    return out
