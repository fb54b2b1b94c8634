"""Resuming an interrupted run in one process: ``resume_job``.

The run is locked, its overrides checked against the newest valid checkpoint (one that
changes the model's variables is refused) and nothing is written before the restore
succeeded; then the job fits on (``runs.fitting``) to its ``train.epochs``. A run of
several workers is not resumed here: it continues when every worker runs its ``train``
command again (``runs.training``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import tensorweave.config as twc
import tensorweave_data
from tensorweave_train.runs import determinism
from tensorweave_train.runs.environment import note_resumed
from tensorweave_train.runs.fitting import Print, check_data, fit_announced, job_distribution
from tensorweave_train.runs.job import settings_of, validate_config
from tensorweave_train.runs.lock import RunDirError, RunLock
from tensorweave_train.runs.run import Run

__all__ = ["resume_job"]


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
        check_data(job)
        tensorweave_data.warn_if_data_changed(job.data, run.path)  # a file changed since: say which
        if overrides:
            twc.save(twc.fill(plan), run.path / Run.CONFIG)
        note_resumed(run.path)  # the config's new hash; what differs in this environment
        if out is not None:
            out(f"resuming {job.run.name} in {run.path}")
        return fit_announced(
            job, run, run.config(), "resume", progress=progress, out=out, resume=True, dist=dist
        )
