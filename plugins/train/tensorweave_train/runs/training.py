"""Training a job into a run directory: ``train_job`` a new run, ``resume_job`` an interrupted one.

The run directory is claimed (unique, locked; see ``runs.directory``) and written only
after the whole config validated and the data checked; a failure before any checkpoint
leaves nothing behind. The job trains with its own callbacks (Ctrl-C to a clean stop, the
NaN guard at epoch ends, checkpoints, ``log.csv``, TensorBoard, the progress display) and
the config's. Installed plugins are told when a job starts and ends (the
``tensorweave_job_started``/``_ended`` hooks), e.g. to record it in a store.

Under a strategy (``[train] strategy``, ``runs.strategy``) the job makes it first, then
builds the model in its scope. On several workers only the chief writes (the run
directory, its checkpoints and logs, TensorBoard, the store's record, which lists the
workers); the others write nothing. Every worker names the same run directory, and running
the same command again continues an unfinished run of the same config from its last
checkpoint (Keras's ``BackupAndRestore``): what a worker killed mid-epoch does when it is
restarted (``commands.train`` restarts the workers that lost it).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import tensorweave as tw
import tensorweave.config as twc
import tensorweave_data
from tensorweave_train.callbacks.checkpoint import CheckpointCallback
from tensorweave_train.callbacks.interrupt import InterruptToStop
from tensorweave_train.callbacks.loggers import CSVLogger, TensorBoard
from tensorweave_train.callbacks.progress import Progress
from tensorweave_train.callbacks.stop_on_nan import StopOnNaN
from tensorweave_train.loop.checkpoints import writing_for
from tensorweave_train.loop.nonfinite import non_finite
from tensorweave_train.runs import determinism
from tensorweave_train.runs.adapt import ADAPTED, adapt_job, adapted_record, dataset_name
from tensorweave_train.runs.cluster.spec import Cluster
from tensorweave_train.runs.directory import write_run_directory
from tensorweave_train.runs.environment import note_resumed
from tensorweave_train.runs.job import (
    Job,
    build_callbacks,
    build_data,
    build_job,
    check_settings,
    settings_of,
    validate_config,
)
from tensorweave_train.runs.lock import RunDirError, RunLock
from tensorweave_train.runs.marker import checkpoint_guard, remove_run_dir, run_id
from tensorweave_train.runs.processors import Processors
from tensorweave_train.runs.run import Run
from tensorweave_train.runs.strategy import Distribution, distribution, serve

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


def _serving(cfg: Mapping[str, Any]) -> bool:
    """Whether this process only serves (a ``parameter_server`` worker or ps task)."""
    if str((cfg.get("train") or {}).get("strategy")) != "parameter_server":
        return False
    cluster = Cluster.from_env()
    return cluster is not None and not cluster.is_chief


def weights_sha256(model: Any) -> str:
    """A checksum of the model's variables (the same on every worker of a synchronous run)."""
    digest = hashlib.sha256()
    for v in model.variables:
        value = v.numpy()  # a string variable (a vocabulary): its bytes, not object pointers
        digest.update(b"\0".join(value.ravel()) if value.dtype == object else value.tobytes())
    return digest.hexdigest()


def _fit(
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


def _serve(dist: Distribution, out: Print) -> dict[str, Any]:
    """A ``parameter_server`` worker or ps task: serve the chief until it is done."""
    assert dist.cluster is not None  # a serving task is a task of a cluster
    if out is not None:
        out(f"{dist.describe()}: serving the chief until it is done")
    started = time.perf_counter()
    serve(dist)
    return {
        "served": dist.cluster.task,
        "strategy": dist.name,
        "workers": dist.workers,
        "chief": dist.cluster.chief_address,
        "seconds": round(time.perf_counter() - started, 2),
    }


def _unfinished(where: Path, filled: Mapping[str, Any]) -> bool:
    """Whether ``where`` holds a run of the config ``filled`` that did not finish (no
    summary): a worker's run, to continue when the same command runs again."""
    config = where / Run.CONFIG
    if not config.is_file() or (where / Run.SUMMARY).exists():
        return False
    try:
        saved = json.loads(config.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return bool(saved == json.loads(json.dumps(filled)))


def _cluster_run_dir(dist: Distribution, explicit: str | Path | None) -> Path:
    if explicit is None:
        raise RunDirError(
            f"[train] strategy = {dist.name!r}: every worker must name the same run directory "
            "(the chief writes it; running the same command again continues it). Fix: "
            "--run-dir DIR on every worker, or [run] dir in the config."
        )
    return Path(explicit)


def train_job(
    cfg: Mapping[str, Any],
    *,
    run_dir: str | Path | None = None,
    source: str | Path | None = None,
    progress: bool | None = None,
    out: Print = print,
    overwrite: bool = False,
    paths_outside: bool = False,
) -> dict[str, Any]:
    """Train the job ``cfg`` describes into a new run directory; returns the summary.

    Everything is validated and built before the directory is made: the explicit
    ``run_dir`` (or ``[run] dir``; default a new ``runs/<name>-<time>``) is refused when it
    holds a run, unless ``overwrite``; it is locked while training and removed again when
    the run fails before its first checkpoint. ``out``: ``print``, or ``None`` for quiet.
    The config's output paths (options typed ``OutputPath``: ``CSVLogger.v1``'s
    ``filename``...) are relative to the run directory, and one that leaves it is refused
    at validation unless ``paths_outside`` (``--allow-paths-outside``).

    Under a multi-worker strategy every worker names the same ``run_dir``, only the chief
    writes it, and a run of the same config there that did not finish is continued from
    its last checkpoint (even with ``overwrite``); see the module docstring.
    """
    # every problem of the config at once, before anything is built; validated once: the
    # plan builds the data and the job and fills the config
    plan = validate_config(cfg, paths_outside=paths_outside)
    turned_on = determinism.apply(settings_of(plan, "train"))  # before anything is built
    try:
        return _train_planned(plan, cfg, run_dir, source, progress, out, overwrite, paths_outside)
    finally:
        determinism.restore(turned_on)


def _train_planned(
    plan: twc.Plan,
    cfg: Mapping[str, Any],
    run_dir: str | Path | None,
    source: str | Path | None,
    progress: bool | None,
    out: Print,
    overwrite: bool,
    paths_outside: bool,
) -> dict[str, Any]:
    data = None if _serving(cfg) else build_data(plan)  # before a strategy starts servers
    dist = job_distribution(plan)  # before TensorFlow runs anything else
    if dist.serves:
        return _serve(dist, out)
    with dist.scope():
        # the callbacks once the run directory is known: their paths are inside it
        job = build_job(plan, [k for k in plan.config if k != "callbacks"], data=data)
    filled = twc.fill(plan)
    _check_data(job)  # missing fields, NaN: before anything is written
    adapted = adapt_job(job, dataset_name(cfg), out)  # before training, on the train split
    explicit = run_dir if run_dir is not None else job.run.dir
    kind = "train"
    if dist.cluster is not None:
        explicit = _cluster_run_dir(dist, explicit)
        if not dist.is_chief:  # writes nothing: the chief writes the run
            if out is not None:
                out(f"training {job.run.name} as {dist.describe()}\n  run directory: {explicit}")
            with dist.scope():
                job.callbacks = build_callbacks(plan, explicit, paths_outside=paths_outside)
            return _fit(job, Run(explicit), progress=progress, out=out, dist=dist)
        if _unfinished(explicit, filled):
            kind = "resume"  # the same command again: continue from the last checkpoint
    if kind == "resume":  # only a cluster's chief, with its run directory named
        assert explicit is not None
        where, created, lock = Path(explicit), False, RunLock(explicit).acquire()
    else:  # the one writer of a new run directory (as Model.save)
        created = explicit is None or not Path(explicit).exists()
        files = {}
        if source is not None and Path(source).is_file():
            files[f"source{Path(source).suffix}"] = Path(source).read_text()
        if adapted is not None:
            files[ADAPTED] = json.dumps(adapted, indent=2) + "\n"
        where, lock = write_run_directory(
            explicit, filled, name=job.run.name, overwrite=overwrite, files=files
        )
    run = Run(where)
    try:
        with dist.scope():
            job.callbacks = build_callbacks(plan, where, paths_outside=paths_outside)
        if kind == "train":
            Processors.of_data(job.data, [i.name for i in job.model.inputs]).save(
                where / Run.PROCESSORS
            )
            tensorweave_data.record_data_manifest(
                job.data, where
            )  # data_manifest.json: the files it reads
        if out is not None:
            doing = "continuing" if kind == "resume" else "training"
            out(f"{doing} {job.run.name}: {job.model}\n  run directory: {where}")
            if dist.name != "default":
                out(f"  {dist.describe()}")
            job.model.summary(print_fn=out)
        return _fit_announced(
            job, run, filled, kind, progress=progress, out=out, dist=dist, resume=kind == "resume"
        )
    except BaseException:
        lock.release()
        if created and not run.checkpointer.checkpoints():
            remove_run_dir(where)  # nothing to resume: leave nothing (only what it wrote)
        raise
    finally:
        lock.release()


def resume_job(
    reference: str | Path,
    overrides: Sequence[str] | Mapping[str, Any] = (),
    *,
    progress: bool | None = None,
    out: Print = print,
    paths_outside: bool = False,
) -> dict[str, Any]:
    """Continue an interrupted run from its newest valid checkpoint (``train.epochs`` is
    the total; raise it with an override to train longer).

    The overrides are checked against the checkpoint first (one that changes the model's
    variables is refused); nothing is written before the restore succeeded. A run of
    several workers continues when every worker runs its ``train`` command again.
    """
    run = Run.open(reference)
    cfg = run.config(overrides)
    strategy = str((cfg.get("train") or {}).get("strategy", "default"))
    if strategy in ("multi_worker", "parameter_server"):
        raise RunDirError(
            f"{run.path} is a {strategy} run: it continues when every worker runs its "
            "tensorweave train command again (the same --run-dir). Fix: do that, or resume it "
            "in one process with --train.strategy=default."
        )
    # once: the plan builds the job and fills the config
    plan = validate_config(cfg, paths_outside=paths_outside)
    turned_on = determinism.apply(settings_of(plan, "train"))  # before anything is built
    try:
        return _resume_planned(run, plan, overrides, progress, out, paths_outside)
    finally:
        determinism.restore(turned_on)


def _resume_planned(
    run: Run,
    plan: twc.Plan,
    overrides: Sequence[str] | Mapping[str, Any],
    progress: bool | None,
    out: Print,
    paths_outside: bool,
) -> dict[str, Any]:
    dist = job_distribution(plan)
    with RunLock(run.path):
        with dist.scope():
            # restored: the overrides fit; the callbacks' paths inside the run
            job = run.job(overrides, parts=None, plan=plan, paths_outside=paths_outside)
        _check_data(job)
        tensorweave_data.warn_if_data_changed(job.data, run.path)  # a file changed since: say which
        if overrides:
            twc.save(twc.fill(plan), run.path / Run.CONFIG)
        note_resumed(run.path)  # the config's new hash; what differs in this environment
        if out is not None:
            out(f"resuming {job.run.name} in {run.path}")
        return _fit_announced(
            job, run, run.config(), "resume", progress=progress, out=out, resume=True, dist=dist
        )
