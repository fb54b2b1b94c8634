"""Using a trained run: restore it, ``evaluate`` it, ``predict`` with it, ``load_model``.

A run is a run directory or any reference an installed plugin resolves through the
``tensorweave_resolve_run`` hook (a model registry's ``"NAME@latest"``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw
import tensorweave.config as twc
from tensorweave_train import guards, rundir
from tensorweave_train.checkpoint import Checkpointer
from tensorweave_train.job_config import FILLED, Job, build_job
from tensorweave_train.model import Model

__all__ = [
    "evaluate",
    "predict",
    "load_model",
    "load_run",
    "export_run",
    "probabilities",
    "top_k",
    "restore_checked",
    "run_config",
]


def run_config(where: Path, overrides: Sequence[str] | Mapping[str, Any] = ()) -> dict[str, Any]:
    """The filled config a run directory saved (``config.json``), with ``overrides``."""
    path = where / FILLED
    if not path.is_file():
        raise rundir.RunDirError(
            f"{where} is not a run directory (no {FILLED}). Fix: pass the directory "
            "`tensorweave train` printed."
        )
    return twc.load(path, overrides=overrides)


def _restored(run_dir: str | Path, overrides: Sequence[str] | Mapping[str, Any] = ()) -> Job:
    from tensorweave_train.hooks import resolve_run

    where = resolve_run(run_dir)
    job = build_job(run_config(where, overrides))
    job.model.build()
    snap = restore_checked(job, where, overrides)
    if snap is None:
        raise tw.TensorweaveError(f"{where} has no valid checkpoint to restore.")
    return job


def evaluate(
    run_dir: str | Path, *, split: str = "valid", overrides: Sequence[str] = ()
) -> dict[str, float]:
    """The loss and metrics of a trained run on its ``valid`` (or ``train``) data."""
    job = _restored(run_dir, overrides)
    return job.model.evaluate(job.split(split), batch_size=job.settings.batch_size)


def _pipeline(steps: list[dict[str, Any]]) -> Any:
    if not steps:
        return lambda v: v
    return tw.registry("pipelines")["Pipeline.v1"](steps, workers=0)


def predict(run_dir: str | Path, raw: Any, *, generate: int = 0, postprocess: bool = True) -> Any:
    """Run a trained model on raw input: the saved pre-processing, the model, then the
    post-processing (e.g. pixels -> normalised -> class scores -> class ids).

    ``generate=N`` (sequence models) appends N predicted items one at a time;
    ``postprocess=False`` returns the model's outputs (scores) without the post-processing.
    """
    from tensorweave_train.hooks import resolve_run

    where = resolve_run(run_dir)
    if not (where / "processors.json").is_file():
        raise rundir.RunDirError(f"{where} is not a run directory (no processors.json).")
    steps = json.loads((where / "processors.json").read_text())
    guards.check_raw(raw, steps.get("info", {}))
    job = _restored(where)
    pre, post = _pipeline(steps["preprocess"]), _pipeline(steps["postprocess"])
    try:
        x = np.asarray(pre(raw))
    except (ValueError, TypeError) as err:
        raise guards.PredictInputError(f"cannot pre-process this input: {err}") from err
    if x.size == 0:
        raise guards.PredictInputError("the input is empty. Fix: give at least one example.")
    if x.ndim == len(job.model.inputs[0].shape) - 1:
        x = x[None]  # one example: add the batch dimension
    try:
        job.model.inputs[0].check(x)
    except (tw.ShapeError, tw.InputValueError) as err:
        raise guards.PredictInputError(f"this input does not fit the model: {err}") from err
    feed = {job.model.inputs[0].name: x}
    if generate:
        ids = x
        for _ in range(generate):
            logits = job.model.predict({job.model.inputs[0].name: ids})
            nxt = np.argmax(logits[:, -1], axis=-1).astype(ids.dtype)
            ids = np.concatenate([ids, nxt[:, None]], axis=1)
        vocab = steps["info"].get("vocab")
        if vocab:
            return tw.processors["detokenize_chars.v1"](ids[0], vocab=vocab)
        return ids
    scores = job.model.predict(feed)
    return post(scores) if postprocess else scores


def probabilities(scores: Any) -> np.ndarray:
    """Class probabilities from a model's scores over the last axis: kept when they already
    are probabilities (non-negative, rows summing to 1), else a softmax of the logits.

    >>> import numpy as np
    >>> probabilities(np.array([[0.0, 0.0]])).tolist()
    [[0.5, 0.5]]
    """
    s = np.asarray(scores, dtype=np.float64)
    if s.size and (s >= 0).all() and np.allclose(s.sum(axis=-1), 1.0, atol=1e-4):
        return s
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    out: np.ndarray = e / e.sum(axis=-1, keepdims=True)
    return out


def top_k(scores: Any, k: int) -> list[list[tuple[int, float]]]:
    """The ``k`` most probable classes of each example, as ``(class, probability)`` pairs.

    >>> import numpy as np
    >>> top_k(np.array([[0.1, 0.7, 0.2]]), 2)
    [[(1, 0.7), (2, 0.2)]]
    """
    p = probabilities(scores).reshape(-1, np.shape(scores)[-1])
    order = np.argsort(-p, axis=-1, kind="stable")[:, :k]
    return [[(int(c), round(float(row[c]), 6)) for c in cls] for row, cls in zip(p, order)]


def load_model(run: str | Path) -> Model:
    """The trained ``Model`` of a run directory (newest valid checkpoint), or of any
    reference an installed plugin resolves (``tensorweave_resolve_run``), such as a model
    registry's ``"NAME@latest"``."""
    return _restored(run).model


def load_run(run_dir: str | Path) -> Model:
    """The trained ``Model`` of a run, restored from its newest valid checkpoint: what
    ``tensorweave train`` made, back in Python (``predict``, ``evaluate``, ``summary``,
    ``export``, or more ``train``). ``run_dir`` is a run directory or any reference an
    installed plugin resolves (a model registry's ``"NAME@latest"``)."""
    return _restored(run_dir).model


def export_run(run_dir: str | Path, out: str | Path) -> Path:
    """Write a run's model and its saved processors as a ``Predictor`` directory: ``out/model``
    (a SavedModel that needs TensorFlow alone) and ``out/predictor.json`` (the pre- and
    post-processing steps); ``Predictor.load(out)`` serves raw input like ``predict``."""
    from tensorweave_train.export import Predictor
    from tensorweave_train.hooks import resolve_run

    where = resolve_run(run_dir)
    steps = json.loads((where / "processors.json").read_text())

    def as_steps(items: list[Any]) -> list[tuple[str, dict[str, Any]]]:
        out_steps: list[tuple[str, dict[str, Any]]] = []
        for item in items:  # {"step": name, **params}, (name, params) or a bare name
            if isinstance(item, str):
                out_steps.append((item, {}))
            elif isinstance(item, dict):
                params = dict(item)
                out_steps.append((str(params.pop("step")), params))
            else:
                out_steps.append((str(item[0]), dict(item[1])))
        return out_steps

    model = _restored(where).model
    predictor = Predictor(model, as_steps(steps["preprocess"]), as_steps(steps["postprocess"]))
    return predictor.save(out)


_MISMATCH = re.compile(
    r"incompatible tensor with shape (?P<saved>\([^)]*\)|\S+) when attempting to restore "
    r"variable with shape (?P<want>\([^)]*\)|\S+) and name (?P<name>[^\s:]+)"
)


def mismatch_message(error: str, model: Any) -> str | None:
    """Which layer and variable a checkpoint's shape mismatch is about (variables carry
    their layer's name, ``h1/weights``), or ``None`` when ``error`` is not one.

    >>> import tensorweave as tw
    >>> x = tw.Input(n_units=3, name="x")
    >>> m = Model(inputs=x, outputs=tw.layers["Linear.v1"](x, n_units=2, name="enc"))
    >>> print(mismatch_message("Received incompatible tensor with shape (4, 2) when "
    ...     "attempting to restore variable with shape (3, 2) and name enc/weights:0.", m))
    layer 'enc' (Linear), variable 'enc/weights': the checkpoint holds shape (4, 2), the model (3, 2)
    """
    found = _MISMATCH.search(error)
    if found is None:
        return None
    name = found["name"].rstrip(".")
    saved, want = found["saved"], found["want"]
    for layer in getattr(model, "layers", ()):
        if any(v.name.split(":")[0] == name for v in layer.variables):
            return (
                f"layer {layer.name!r} ({type(layer).__name__}), variable {name!r}: the "
                f"checkpoint holds shape {saved}, the model {want}"
            )
    return f"variable {name!r}: the checkpoint holds shape {saved}, the model {want}"


def restore_checked(
    job: Job, where: Path, overrides: Sequence[str] | Mapping[str, Any]
) -> dict[str, Any] | None:
    """Restore the newest valid checkpoint of ``where`` into the built ``job.model``; a
    model the overrides changed so that the checkpoint does not fit is a ``ConfigError``."""
    try:
        return Checkpointer(where).restore(job.model)
    except (ValueError, AssertionError, tf.errors.OpError) as err:
        given = (
            [f"{k}={v}" for k, v in overrides.items()]
            if isinstance(overrides, Mapping)
            else list(overrides)
        )
        first = str(err).strip().splitlines()[0][:300] if str(err).strip() else type(err).__name__
        first = mismatch_message(first, job.model) or first
        if not given:
            raise tw.TensorweaveError(f"cannot restore the checkpoint in {where}: {first}") from err
        paths = [twc.parse_override(g)[0] if isinstance(g, str) else str(g) for g in given]
        plain = ("train.", "run.", "data.", "optimizer.", "callbacks")
        paths = [p for p in paths if not p.startswith(plain)] or paths
        raise twc.ConfigError(
            [
                (
                    p,
                    "this override changes the model's variables, so the checkpoint in "
                    f"{where} cannot be restored into it ({first}). Fix: resume with the "
                    "same model (change only [train], [data] or the optimizer's settings), or "
                    "train a new run.",
                )
                for p in paths
            ]
        ) from err
