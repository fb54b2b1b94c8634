"""Training a job into a new run directory: ``train_job``.

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

The fit itself (callbacks, summary) is ``runs.fitting``; continuing an interrupted run
in one process is ``runs.resuming``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import tensorweave.config as twc
import tensorweave_data
from tensorweave_train.runs import determinism
from tensorweave_train.runs.adapt import ADAPTED, adapt_job, dataset_name
from tensorweave_train.runs.cluster.spec import Cluster
from tensorweave_train.runs.directory import write_run_directory
from tensorweave_train.runs.fitting import (
    Print,
    check_data,
    fit,
    fit_announced,
    job_distribution,
)
from tensorweave_train.runs.job import (
    build_callbacks,
    build_data,
    build_job,
    settings_of,
    validate_config,
)
from tensorweave_train.runs.lock import RunDirError, RunLock
from tensorweave_train.runs.marker import remove_run_dir
from tensorweave_train.runs.processors import Processors
from tensorweave_train.runs.run import Run
from tensorweave_train.runs.strategy import Distribution, serve

__all__ = ["train_job"]


def _serving(cfg: Mapping[str, Any]) -> bool:
    """Whether this process only serves (a ``parameter_server`` worker or ps task)."""
    if str((cfg.get("train") or {}).get("strategy")) != "parameter_server":
        return False
    cluster = Cluster.from_env()
    return cluster is not None and not cluster.is_chief


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
    check_data(job)  # missing fields, NaN: before anything is written
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
            return fit(job, Run(explicit), progress=progress, out=out, dist=dist)
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
        return fit_announced(
            job, run, filled, kind, progress=progress, out=out, dist=dist, resume=kind == "resume"
        )
    except BaseException:
        lock.release()
        if created and not run.checkpointer.checkpoints():
            remove_run_dir(where)  # nothing to resume: leave nothing (only what it wrote)
        raise
    finally:
        lock.release()
