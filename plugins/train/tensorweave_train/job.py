"""The main job: train, evaluate, predict and resume a model described by a config file.

A job config (TOML, JSON or YAML; see ``configs/digits.toml``) has these sections:

- ``[data]``: a dataset promise (``"@datasets" = "digits.v1"``) giving ``train`` and
  ``valid`` arrays by field; the fields feed the model's input and target nodes of the
  same name;
- ``[model]``: a graph block (``nodes`` wired by name) naming its ``inputs``, ``targets``,
  ``outputs``, ``loss`` and ``metrics`` nodes;
- ``[optimizer]``: an optimizer promise (default Adam);
- ``[train]``: ``epochs``, ``batch_size``, ``seed``, ``shuffle``, ``limit`` (train on the
  first N examples, for smoke runs), ``checkpoint_every`` (epochs);
- ``callbacks``: a list of callback promises, added to the job's own (checkpoints,
  CSV log, progress);
- ``[run]``: ``name`` (a plain name: no path separators or ``..``) and ``dir`` (default
  a new ``runs/<name>-<time>``, never one that exists; see ``rundir``);
- other top-level tables hold plain values for ``${...}`` variables (``[dims]``); one that
  looks like a misspelled section or holds a component is refused.

A run directory holds ``config.json`` (the config with every default filled in, the
provider of every component and the library versions: it alone reproduces the run),
``source.toml`` (the file as given), ``checkpoints/``, ``log.csv``, ``processors.json``
(the data steps a predictor applies) and ``summary.json``.

>>> sorted(DEFAULTS)
['chars', 'digits']
>>> for path, problem in check_settings({"train": {"epochs": "x", "bogus": 1}}):
...     print(f"{path}: {problem}")
train.epochs: expected int, got 'x'
train.bogus: unknown setting; settings: epochs, batch_size, seed, shuffle, limit, checkpoint_every
data: a job config needs a [data] section
model: a job config needs a [model] section
"""

from __future__ import annotations

import difflib
import json
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw
import tensorweave.config as twc
from tensorweave_train import guards, rundir
from tensorweave_train.checkpoint import CheckpointCallback, Checkpointer
from tensorweave_train.events import Callback, Event, TrainState, on_epoch, on_train
from tensorweave_train.guards import Interrupted, PredictInputError
from tensorweave_train.model import Model

__all__ = [
    "DEFAULTS",
    "TrainSettings",
    "RunSettings",
    "Job",
    "config_path",
    "load_config",
    "check_settings",
    "validate_job",
    "build_job",
    "train",
    "evaluate",
    "predict",
    "resume",
    "Interrupted",
    "PredictInputError",
    "load_model",
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


@dataclass
class RunSettings:
    """The ``[run]`` section."""

    name: str = "run"
    dir: str | None = None


SECTIONS: dict[str, type] = {"train": TrainSettings, "run": RunSettings}


def config_path(name: str | None) -> Path:
    """A config file: ``None`` or a built-in name (``digits``, ``chars``), or a path."""
    if name is None or name in DEFAULTS:
        ref = resources.files("tensorweave_train") / "configs" / DEFAULTS[name or "digits"]
        return Path(str(ref))
    return Path(name)


def load_config(name: str | None, overrides: Sequence[str] | Mapping[str, Any] = ()) -> dict:
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


class EpochPrinter(Callback):
    """One line per epoch (when no progress bar is shown) and timing for the summary."""

    priority = 70

    def __init__(self, out: Callable[[str], None] | None) -> None:
        self.out = out
        self.triggers = (on_train(at="start"), on_epoch(), on_train())
        self.started = 0.0

    def __call__(self, event: Event, state: TrainState) -> None:
        if event is Event.TRAIN_START:
            self.started = time.perf_counter()
        elif event is Event.EPOCH_END and self.out is not None:
            values = "  ".join(
                f"{k} {v:.4f}" for k, v in state.values.items() if k != "learning_rate"
            )
            self.out(
                f"epoch {state.epoch + 1}/{state.epochs}  {values}  "
                f"({time.perf_counter() - self.started:.0f}s)"
            )


def _run_dir(job: Job, run_dir: str | Path | None) -> Path | None:
    """The explicit run directory (``--run-dir`` or ``[run] dir``), or ``None`` for a new
    ``runs/<name>-<time>`` one."""
    if run_dir is not None:
        return Path(run_dir)
    if job.run.dir:
        return Path(job.run.dir)
    return None


def _check_data(job: Job) -> None:
    """Missing fields (``ConfigError``) and NaN/inf values (the job stops on NaN by
    default) in the training and validation data."""
    from tensorweave_train.trainer import non_finite

    for split in ("train", "valid"):
        bad = non_finite(job.split(split))
        if bad is not None:
            raise tw.TensorweaveError(
                f"the {split} data's {bad}. Fix: clean the data (the job stops on NaN)."
            )


def _processors(job: Job) -> dict[str, Any]:
    data = job.data
    return {
        "preprocess": list(getattr(data, "preprocess", []) or []),
        "postprocess": list(getattr(data, "postprocess", []) or []),
        "info": dict(getattr(data, "info", {}) or {}),
        "inputs": [i.name for i in job.model.inputs],
    }


def _fit(
    job: Job,
    run_dir: Path,
    *,
    progress: bool | None,
    out: Callable[[str], None] | None,
    resume_from: Path | None = None,
) -> dict[str, Any]:
    settings = job.settings
    printer = EpochPrinter(out if progress is not True else None)
    interrupt, nan = guards.InterruptToStop(), guards.StopOnNonFinite()
    checkpoints = CheckpointCallback(run_dir, every_epochs=settings.checkpoint_every)
    callbacks: list[Any] = [
        interrupt,
        nan,
        checkpoints,
        ("CSVLogger.v1", {"path": str(run_dir / "log.csv")}),
        ("ProgressBar.v1", {"enabled": progress}),
        printer,
        *job.callbacks,
    ]
    train_data = job.split("train")
    valid = job.split("valid")
    started = time.perf_counter()
    interrupt.install()
    try:
        history = job.model.train(
            train_data,
            settings.epochs,
            batch_size=settings.batch_size,
            validation=valid if len(next(iter(valid.values()))) else None,
            callbacks=callbacks,
            shuffle=settings.shuffle,
            seed=settings.seed,
            resume=resume_from,
        )
    finally:
        interrupt.uninstall()
    if interrupt.hit:
        saved = checkpoints.last_saved
        raise guards.Interrupted(run_dir, int(saved.name.split("-")[-1]) if saved else None)
    if nan.reason is not None:
        raise tw.TensorweaveError(f"training stopped: {nan.reason} Run directory: {run_dir}")
    seconds = time.perf_counter() - started
    final = job.model.evaluate(valid, batch_size=settings.batch_size)
    summary = {
        "run_dir": str(run_dir),
        "epochs": len(history),
        "steps": int(history.state.step) if hasattr(history, "state") else None,
        "train_seconds": round(seconds, 2),
        "train_examples": len(next(iter(train_data.values()))),
        # the figures as evaluate gives them (float32, shortest decimal): the same numbers
        # as the last epoch's val_* in log.csv, the history and TensorBoard
        "valid": {k: float(v) for k, v in final.items()},
        "history": [dict(h) for h in history],
        "stopped": getattr(history.state, "stop_reason", None)
        if hasattr(history, "state")
        else None,
    }
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def train(
    cfg: Mapping[str, Any],
    *,
    run_dir: str | Path | None = None,
    source: str | Path | None = None,
    progress: bool | None = None,
    out: Callable[[str], None] | None = print,
    overwrite: bool = False,
) -> dict[str, Any]:
    """Train the job ``cfg`` describes into a new run directory; returns the summary.

    Everything is validated and built before the directory is made; an explicit
    ``run_dir`` that already holds a run is refused unless ``overwrite``; the directory is
    locked while training (``rundir.RunLock``) and removed again when the run fails before
    its first checkpoint.
    """
    validate_job(cfg)  # every problem at once, before anything is built
    filled = twc.fill(cfg)
    job = build_job(cfg)
    _check_data(job)  # missing fields, NaN: before anything is written
    explicit = _run_dir(job, run_dir)
    if explicit is None:
        where = rundir.new_run_dir("runs", job.run.name)
        created, lock = True, rundir.RunLock(where).acquire()
    else:
        created = not explicit.exists()
        where, lock = rundir.claim(explicit, overwrite=overwrite)
    try:
        twc.save(filled, where / FILLED)
        if source is not None and Path(source).is_file():
            (where / f"source{Path(source).suffix}").write_text(Path(source).read_text())
        (where / "processors.json").write_text(json.dumps(_processors(job), indent=2) + "\n")
        if out is not None:
            out(f"training {job.run.name}: {job.model}\n  run directory: {where}")
        return _fit_announced(job, where, filled, "train", progress=progress, out=out)
    except BaseException:
        lock.release()
        if created and not Checkpointer(where).checkpoints():
            shutil.rmtree(where, ignore_errors=True)  # nothing to resume: leave nothing
        raise
    finally:
        lock.release()


def _fit_announced(
    job: Job, where: Path, config: Mapping[str, Any], kind: str, **kw: Any
) -> dict[str, Any]:
    """``_fit`` between the ``tensorweave_job_started``/``_ended`` hooks."""
    from tensorweave_train.hooks import job_ended, job_started

    job_started(job, where, config, kind)
    try:
        summary = _fit(job, where, **kw)
    except BaseException as err:
        job_ended(job, where, kind, None, err)
        raise
    job_ended(job, where, kind, summary, None)
    return summary


def _restored(run_dir: str | Path, overrides: Sequence[str] | Mapping[str, Any] = ()) -> Job:
    from tensorweave_train.hooks import resolve_run

    where = resolve_run(run_dir)
    path = where / FILLED
    if not path.is_file():
        raise rundir.RunDirError(
            f"{where} is not a run directory (no {FILLED}). Fix: pass the directory "
            "`tensorweave train` printed."
        )
    cfg = twc.load(path, overrides=overrides)
    job = build_job(cfg)
    job.model.build()
    snap = _restore_checked(job, where, overrides)
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


def predict(run_dir: str | Path, raw: Any, *, generate: int = 0) -> Any:
    """Run a trained model on raw input: the saved pre-processing, the model, then the
    post-processing (e.g. pixels -> normalised -> class scores -> class ids).

    ``generate=N`` (sequence models) appends N predicted items one at a time.
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
    return post(job.model.predict(feed))


def resume(
    run_dir: str | Path,
    overrides: Sequence[str] | Mapping[str, Any] = (),
    *,
    progress: bool | None = None,
    out: Callable[[str], None] | None = print,
) -> dict[str, Any]:
    """Continue an interrupted run from its newest valid checkpoint (``train.epochs`` is
    the total; raise it with an override to train longer).

    The overrides are checked against the checkpoint first (one that changes the model's
    variables is refused); nothing is written before the restore succeeded.
    """
    where = Path(run_dir)
    path = where / FILLED
    if not path.is_file():
        raise rundir.RunDirError(
            f"{where} is not a run directory (no {FILLED}). Fix: pass the directory "
            "`tensorweave train` printed."
        )
    cfg = twc.load(path, overrides=overrides)
    job = build_job(cfg)
    _check_data(job)
    with rundir.RunLock(where):
        job.model.build()
        if _restore_checked(job, where, overrides) is None:
            raise tw.TensorweaveError(f"{where} has no valid checkpoint to resume from.")
        if overrides:
            twc.save(twc.fill(cfg), path)
        if out is not None:
            out(f"resuming {job.run.name} in {where}")
        return _fit_announced(
            job, where, twc.load(path), "resume", progress=progress, out=out, resume_from=where
        )


def _restore_checked(
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


def load_model(run: str | Path) -> Model:
    """The trained ``Model`` of a run directory (newest valid checkpoint), or of any
    reference an installed plugin resolves (``tensorweave_resolve_run``), such as a model
    registry's ``"NAME@latest"``."""
    return _restored(run).model


def settings_dict(job: Job) -> dict[str, Any]:
    """The train settings as a dict (for summaries)."""
    return asdict(job.settings)
