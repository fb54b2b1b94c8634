"""Training a job into a run directory: ``train`` a new run, ``resume`` an interrupted one.

The run directory is claimed (unique, locked; see ``rundir``) and written only after the
whole config validated and the data checked; a failure before any checkpoint leaves
nothing behind. Installed plugins are told when a job starts and ends (the
``tensorweave_job_started``/``_ended`` hooks), e.g. to record it in a store.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import tensorweave as tw
import tensorweave.config as twc
from tensorweave_train import guards, rundir
from tensorweave_train.checkpoint import CheckpointCallback, Checkpointer
from tensorweave_train.events import Callback, Event, TrainState, on_epoch, on_train
from tensorweave_train.job_config import FILLED, Job, build_job, validate_job
from tensorweave_train.restore import restore_checked, run_config

__all__ = ["EpochPrinter", "train", "resume"]


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
        elif event is Event.TRAIN_END and self.out is not None and state.stop_reason:
            self.out(f"stopped after epoch {len(state.history)}: {state.stop_reason}")
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
        ("CSVLogger.v1", {"filename": str(run_dir / "log.csv")}),
        ("ProgressBar.v1", {"enabled": progress}),
        printer,
        *job.callbacks,
    ]
    if job.run.tensorboard:  # opt out with [run] tensorboard = false
        log_dir = str(run_dir / "tensorboard")
        callbacks.append(("TensorBoard.v1", {"log_dir": log_dir, "write_graph": False}))
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
            verbose=0,  # the printer and bar above show progress
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
            job.model.summary(print_fn=out)
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
    cfg = run_config(where, overrides)
    job = build_job(cfg)
    _check_data(job)
    with rundir.RunLock(where):
        job.model.build()
        if restore_checked(job, where, overrides) is None:
            raise tw.TensorweaveError(f"{where} has no valid checkpoint to resume from.")
        if overrides:
            twc.save(twc.fill(cfg), path)
        if out is not None:
            out(f"resuming {job.run.name} in {where}")
        return _fit_announced(
            job, where, twc.load(path), "resume", progress=progress, out=out, resume_from=where
        )
