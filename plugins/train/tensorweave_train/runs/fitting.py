"""Fitting a built job into its run: the callbacks, the training, the summary.

``fit(job, run)`` trains the job with its own callbacks (Ctrl-C to a clean stop,
``Interrupted``; the NaN guard at epoch ends; checkpoints, ``log.csv``, TensorBoard, the
progress display) and the config's, evaluates it and writes ``summary.json`` (only the
chief writes); ``fit_announced`` does so between the ``tensorweave_job_started``/``_ended``
hooks. ``check_data`` refuses missing fields and NaN before anything is written,
``job_distribution`` makes the strategy a config asks for, ``skipped_records`` and
``weights_sha256`` fill the summary. Shared by a new run (``runs.training``) and a resumed
one (``runs.resuming``), which only differ in how they get their job and directory.

>>> weights_sha256(type("M", (), {"variables": []})()) == __import__("hashlib").sha256().hexdigest()
True
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import tensorweave as tw
import tensorweave.config as twc
from tensorweave_train.callbacks.checkpoint import CheckpointCallback
from tensorweave_train.callbacks.interrupt import InterruptToStop
from tensorweave_train.callbacks.loggers import CSVLogger, TensorBoard
from tensorweave_train.callbacks.progress import Progress
from tensorweave_train.callbacks.stop_on_nan import StopOnNaN
from tensorweave_train.loop.checkpoints import writing_for
from tensorweave_train.loop.nonfinite import non_finite
from tensorweave_train.runs.adapt import adapted_record
from tensorweave_train.runs.job import Job, check_settings, validate_config
from tensorweave_train.runs.marker import checkpoint_guard, run_id
from tensorweave_train.runs.run import Run
from tensorweave_train.runs.strategy import Distribution, distribution

__all__ = [
    "Interrupted",
    "Print",
    "check_data",
    "fit",
    "fit_announced",
    "job_distribution",
    "skipped_records",
    "weights_sha256",
]

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


def check_data(job: Job) -> None:
    """Missing fields (``ConfigError``) and NaN/inf values (the job stops on NaN) in the
    training and validation data, before anything is written."""
    for split in ("train", "valid"):
        bad = non_finite(job.split(split))
        if bad is not None:
            raise tw.TensorweaveError(
                f"the {split} data's {bad}. Fix: clean the data (the job stops on NaN)."
            )


def _display(
    progress: bool | None, out: Print, skipped: Callable[[], int] | None = None
) -> Progress:
    """The progress display: a bar on a terminal (always with ``progress=True``), else a
    line per epoch (with the count of ``skipped`` records); quiet (``out=None``) still says
    why training stopped early."""
    if out is None:
        return Progress(0, announce_stop=True)
    return Progress(1, bar=progress, skipped=skipped)


def skipped_records(job: Job, splits: Mapping[str, Any]) -> dict[str, int]:
    """What a file dataset with ``on_error = "skip"`` skipped, for the run record:
    ``scan``: the files its scan found not to be images (before the split, so in no split),
    ``train``/``valid``: the records of that split that failed to decode when last read.
    Only the non-zero counts; ``{}`` for data that skips nothing.

    >>> skipped_records(None, {"train": {"x": None}})
    {}
    """
    info = getattr(getattr(job, "data", None), "info", None) or {}
    counts = {"scan": int(info.get("skipped_files", 0) or 0)}
    for name, split in splits.items():
        columns = list(split.values()) if isinstance(split, Mapping) else []
        stream = getattr(columns[0], "stream", None) if columns else None
        counts[name] = int(getattr(stream, "skipped", 0) or 0)
    return {k: v for k, v in counts.items() if v}


def job_distribution(source: Mapping[str, Any] | twc.Plan) -> Distribution:
    """The distribution ``[train] strategy`` and ``devices`` ask for, made before anything
    is built. ``source``: a config (its plain settings checked first: every problem of the
    config at once) or the ``twc.Plan`` of its validation."""
    if isinstance(source, twc.Plan):
        cfg: Mapping[str, Any] = source.config
    else:
        cfg = source
        if check_settings(cfg):
            validate_config(cfg)  # raises the ConfigError listing every problem
    train = dict(cfg.get("train") or {})
    return distribution(str(train.get("strategy", "default")), train.get("devices"))


def weights_sha256(model: Any) -> str:
    """A checksum of the model's variables (the same on every worker of a synchronous run)."""
    digest = hashlib.sha256()
    for v in model.variables:
        value = v.numpy()  # a string variable (a vocabulary): its bytes, not object pointers
        digest.update(b"\0".join(value.ravel()) if value.dtype == object else value.tobytes())
    return digest.hexdigest()


def fit(
    job: Job,
    run: Run,
    *,
    progress: bool | None,
    out: Print,
    resume: bool = False,
    dist: Distribution | None = None,
) -> dict[str, Any]:
    settings = job.settings
    dist = dist if dist is not None else distribution()
    interrupt, nan = InterruptToStop(), StopOnNaN(every=None, at_epoch_end=True)
    checkpoints = CheckpointCallback(run.path, every_epochs=settings.checkpoint_every)
    train_data = job.split("train")
    valid = job.split("valid")

    def skipped_this_epoch() -> int:  # the epoch line's count: scan + the train split's
        counts = skipped_records(job, {"train": train_data})
        return sum(counts.values())

    display = _display(progress, out, skipped_this_epoch)
    callbacks: list[Any] = [interrupt, nan, display, *job.callbacks]
    if dist.is_chief:  # the chief alone writes
        callbacks += [checkpoints, CSVLogger(run.path / Run.LOG)]
        if job.run.tensorboard:  # opt out with [run] tensorboard = false
            callbacks.append(TensorBoard(run.path / "tensorboard", write_graph=False))
    started = time.perf_counter()
    interrupt.install()
    try:
        with writing_for(run_id(run.path), checkpoint_guard(run.path)):  # prunes only its own
            history = job.model.train(
                train_data,
                epochs=settings.epochs,
                batch_size=settings.batch_size,
                validation=valid if len(next(iter(valid.values()))) else None,
                callbacks=callbacks,
                shuffle=settings.shuffle,
                seed=settings.seed,
                # on several workers every one takes part in the restore (the chief's, shared)
                resume=run.path if resume or dist.cluster is not None else None,
                verbose=0,  # the job's display is among the callbacks
                shard=settings.shard,
            )
    finally:
        interrupt.uninstall()
    if interrupt.hit:
        saved = checkpoints.last_saved
        raise Interrupted(run.path, int(saved.name.split("-")[-1]) if saved else None)
    if nan.reason is not None:
        raise tw.TensorweaveError(f"training stopped: {nan.reason} Run directory: {run.path}")
    seconds = time.perf_counter() - started
    has_valid = bool(len(next(iter(valid.values()))))  # valid_fraction = 0: no evaluation
    final = job.model.evaluate(valid, batch_size=settings.batch_size) if has_valid else {}
    splits = {"train": train_data, "valid": valid}
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
        "seed": settings.seed,
        "deterministic": settings.deterministic,
        **dist.summary(),
        # what on_error = "skip" skipped (only when it did): {"scan": 1, "train": 2}
        **({"skipped": skipped} if (skipped := skipped_records(job, splits)) else {}),
        "weights_sha256": weights_sha256(job.model),
        **adapted_record(run.path),  # what the preprocessing layers adapted on (runs.adapt)
    }
    if dist.is_chief:
        (run.path / Run.SUMMARY).write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def fit_announced(
    job: Job, run: Run, config: Mapping[str, Any], kind: str, **kw: Any
) -> dict[str, Any]:
    """``fit`` between the ``tensorweave_job_started``/``_ended`` hooks."""
    from tensorweave_train.hooks import job_ended, job_started

    job_started(job, run.path, config, kind)
    try:
        summary = fit(job, run, **kw)
    except BaseException as err:
        job_ended(job, run.path, kind, None, err)
        raise
    job_ended(job, run.path, kind, summary, None)
    return summary
