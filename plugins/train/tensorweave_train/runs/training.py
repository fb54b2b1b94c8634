"""Training a job into a run directory: ``train_job`` a new run, ``resume_job`` an interrupted one.

The run directory is claimed (unique, locked; see ``runs.directory``) and written only
after the whole config validated and the data checked; a failure before any checkpoint
leaves nothing behind. The job trains with its own callbacks (Ctrl-C to a clean stop, the
NaN guard at epoch ends, checkpoints, ``log.csv``, TensorBoard, the progress display) and
the config's. Installed plugins are told when a job starts and ends (the
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
from tensorweave_train.callbacks.checkpoint import CheckpointCallback
from tensorweave_train.callbacks.interrupt import InterruptToStop
from tensorweave_train.callbacks.loggers import CSVLogger, TensorBoard
from tensorweave_train.callbacks.progress import Progress
from tensorweave_train.callbacks.stop_on_nan import StopOnNaN
from tensorweave_train.loop.nonfinite import non_finite
from tensorweave_train.runs.config import Job, build_job
from tensorweave_train.runs.directory import RunLock, claim, new_run_dir
from tensorweave_train.runs.processors import Processors
from tensorweave_train.runs.run import Run

__all__ = ["Interrupted", "train_job", "resume_job"]

Print = Callable[[str], None] | None  # print, or None for quiet


class Interrupted(tw.TensorweaveError):
    """Training was interrupted (Ctrl-C); a checkpoint was saved in ``run_dir``."""

    exit_code = 130

    def __init__(self, run_dir: Path, step: int | None) -> None:
        self.run_dir = run_dir
        self.step = step
        at = f" at step {step}" if step is not None else ""
        super().__init__(
            f"interrupted: saved a checkpoint{at} in {run_dir}\n"
            f"  resume with: tensorweave resume {run_dir}"
        )


def _check_data(job: Job) -> None:
    """Missing fields (``ConfigError``) and NaN/inf values (the job stops on NaN) in the
    training and validation data, before anything is written."""
    for split in ("train", "valid"):
        bad = non_finite(job.split(split))
        if bad is not None:
            raise tw.TensorweaveError(
                f"the {split} data's {bad}. Fix: clean the data (the job stops on NaN)."
            )


def _display(progress: bool | None, out: Print) -> Progress:
    """The progress display: a bar on a terminal (always with ``progress=True``), else a
    line per epoch; quiet (``out=None``) still says why training stopped early."""
    if out is None:
        return Progress(0, announce_stop=True)
    return Progress(1, bar=progress)


def _fit(
    job: Job, run: Run, *, progress: bool | None, out: Print, resume: bool = False
) -> dict[str, Any]:
    settings = job.settings
    interrupt, nan = InterruptToStop(), StopOnNaN(every=None, at_epoch_end=True)
    checkpoints = CheckpointCallback(run.path, every_epochs=settings.checkpoint_every)
    callbacks: list[Any] = [
        interrupt,
        nan,
        checkpoints,
        CSVLogger(run.path / Run.LOG),
        _display(progress, out),
        *job.callbacks,
    ]
    if job.run.tensorboard:  # opt out with [run] tensorboard = false
        callbacks.append(TensorBoard(run.path / "tensorboard", write_graph=False))
    train_data = job.split("train")
    valid = job.split("valid")
    started = time.perf_counter()
    interrupt.install()
    try:
        history = job.model.train(
            train_data,
            epochs=settings.epochs,
            batch_size=settings.batch_size,
            validation=valid if len(next(iter(valid.values()))) else None,
            callbacks=callbacks,
            shuffle=settings.shuffle,
            seed=settings.seed,
            resume=run.path if resume else None,
            verbose=0,  # the job's display is among the callbacks
        )
    finally:
        interrupt.uninstall()
    if interrupt.hit:
        saved = checkpoints.last_saved
        raise Interrupted(run.path, int(saved.name.split("-")[-1]) if saved else None)
    if nan.reason is not None:
        raise tw.TensorweaveError(f"training stopped: {nan.reason} Run directory: {run.path}")
    seconds = time.perf_counter() - started
    final = job.model.evaluate(valid, batch_size=settings.batch_size)
    summary = {
        "run_dir": str(run.path),
        "epochs": len(history),
        "steps": int(history.state.step),
        "train_seconds": round(seconds, 2),
        "train_examples": len(next(iter(train_data.values()))),
        # the figures as evaluate gives them (float32, shortest decimal): the same numbers
        # as the last epoch's val_* in log.csv, the history and TensorBoard
        "valid": {k: float(v) for k, v in final.items()},
        "history": [dict(h) for h in history],
        "stopped": history.state.stop_reason or None,
    }
    (run.path / Run.SUMMARY).write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def _fit_announced(
    job: Job, run: Run, config: Mapping[str, Any], kind: str, **kw: Any
) -> dict[str, Any]:
    """``_fit`` between the ``tensorweave_job_started``/``_ended`` hooks."""
    from tensorweave_train.hooks import job_ended, job_started

    job_started(job, run.path, config, kind)
    try:
        summary = _fit(job, run, **kw)
    except BaseException as err:
        job_ended(job, run.path, kind, None, err)
        raise
    job_ended(job, run.path, kind, summary, None)
    return summary


def train_job(
    cfg: Mapping[str, Any],
    *,
    run_dir: str | Path | None = None,
    source: str | Path | None = None,
    progress: bool | None = None,
    out: Print = print,
    overwrite: bool = False,
) -> dict[str, Any]:
    """Train the job ``cfg`` describes into a new run directory; returns the summary.

    Everything is validated and built before the directory is made: the explicit
    ``run_dir`` (or ``[run] dir``; default a new ``runs/<name>-<time>``) is refused when it
    holds a run, unless ``overwrite``; it is locked while training and removed again when
    the run fails before its first checkpoint. ``out``: ``print``, or ``None`` for quiet.
    """
    job = build_job(cfg)  # every problem of the config at once, before anything is built
    filled = twc.fill(cfg)
    _check_data(job)  # missing fields, NaN: before anything is written
    explicit = run_dir if run_dir is not None else job.run.dir
    if explicit is None:
        where = new_run_dir("runs", job.run.name)
        created, lock = True, RunLock(where).acquire()
    else:
        created = not Path(explicit).exists()
        where, lock = claim(explicit, overwrite=overwrite)
    run = Run(where)
    try:
        twc.save(filled, where / Run.CONFIG)
        if source is not None and Path(source).is_file():
            (where / f"source{Path(source).suffix}").write_text(Path(source).read_text())
        Processors.of_data(job.data, [i.name for i in job.model.inputs]).save(
            where / Run.PROCESSORS
        )
        if out is not None:
            out(f"training {job.run.name}: {job.model}\n  run directory: {where}")
            job.model.summary(print_fn=out)
        return _fit_announced(job, run, filled, "train", progress=progress, out=out)
    except BaseException:
        lock.release()
        if created and not run.checkpointer.checkpoints():
            shutil.rmtree(where, ignore_errors=True)  # nothing to resume: leave nothing
        raise
    finally:
        lock.release()


def resume_job(
    reference: str | Path,
    overrides: Sequence[str] | Mapping[str, Any] = (),
    *,
    progress: bool | None = None,
    out: Print = print,
) -> dict[str, Any]:
    """Continue an interrupted run from its newest valid checkpoint (``train.epochs`` is
    the total; raise it with an override to train longer).

    The overrides are checked against the checkpoint first (one that changes the model's
    variables is refused); nothing is written before the restore succeeded.
    """
    run = Run.open(reference)
    cfg = run.config(overrides)
    with RunLock(run.path):
        job = run.job(overrides, parts=None)  # built and restored: the overrides fit
        _check_data(job)
        if overrides:
            twc.save(twc.fill(cfg), run.path / Run.CONFIG)
        if out is not None:
            out(f"resuming {job.run.name} in {run.path}")
        return _fit_announced(
            job, run, run.config(), "resume", progress=progress, out=out, resume=True
        )
