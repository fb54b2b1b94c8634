"""Hyper-parameter sweeps on Optuna, the study kept in the store's own database.

``tensorweave sweep [CONFIG] --param PATH=DIST ... --trials N --workers K`` searches the
config values ``PATH`` over the distributions ``DIST``:

- ``uniform(LO,HI)``, ``uniform(LO,HI,STEP)``, ``loguniform(LO,HI)``: floats;
- ``int(LO,HI)``, ``int(LO,HI,STEP)``, ``logint(LO,HI)``: integers;
- ``choice(A,B,...)``: one of the values (typed as command-line overrides are).

The study lives in the store's database through Optuna's RDB storage (the SQLite file by
default, PostgreSQL when ``TENSORWEAVE_STORE``/``--store`` names one); its name is made from
the command (config, params, overrides, metric), so the same command on another machine with
the same store URL joins the same study. Each of the K workers is a real process running
trials one after another; each trial is an ordinary ``tensorweave_train`` job (so the store
records it as a run, under ``runs/sweeps/STUDY/trial-NNNN``) with the trial's values as
overrides. Workers beat a heartbeat while a trial runs: a trial whose worker died (killed,
machine lost) is marked failed after the grace period by any live worker and retried with
the same values (``RetryFailedTrialCallback``); a trial that raised is marked failed and not
retried. Each epoch reports the validation metric to Optuna; a trial the pruner judges bad
stops at the end of that epoch (state PRUNED).

N is the number of trials the study should hold (finished, pruned or failed; a killed trial
and its retry count once); a worker stops when the study has them all and none is still
running. Two workers checking at the same instant may start one trial too many.

Note for the store's schema: Optuna creates its own tables (``studies``, ``trials``,
``trial_*``, ``version_info``…) and stamps Optuna's schema revision in Alembic's default
version table ``alembic_version``; the store's own migrations therefore keep their revision
in a table of another name.

The search space and the spec are in ``tensorweave_store.sweeps.search_space``, the study (its
storage, creation and tally) in ``tensorweave_store.sweeps.study``; their names are importable
from here too.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import tensorweave as tw
from tensorweave_store.db.engine import connect
from tensorweave_store.db.outage import is_outage
from tensorweave_store.db.urls import STORE_ENV, redact, using
from tensorweave_store.sweeps.pause import TrialWatch, settle, wait_for_database
from tensorweave_store.sweeps.pruning import report_to
from tensorweave_store.sweeps.search_space import (
    KINDS,
    SearchParam,
    SweepError,
    SweepSpec,
    parse_param,
)
from tensorweave_store.sweeps.study import (
    check_params,
    create_study,
    load_study,
    quiet_optuna,
    retry_class,
    storage,
    tally,
    trial_overrides,
)

__all__ = [
    "KINDS",
    "SweepError",
    "SearchParam",
    "SweepSpec",
    "parse_param",
    "storage",
    "check_params",
    "create_study",
    "load_study",
    "run_worker",
    "run_sweep",
    "tally",
    "retry_class",
    "report_to",
    "requeue_interrupted",
]

TAGS_ENV = "TENSORWEAVE_STORE_TAGS"  # the store tags the runs it records with these


def _objective(
    spec: SweepSpec, search: list[SearchParam], metric: str, worker: str, watch: TrialWatch
) -> Any:
    def objective(trial: Any) -> float:
        study = trial.study.study_name
        run_dir = spec.root() / "sweeps" / study / f"trial-{trial.number:04d}"
        outcome = watch.start(trial.number, run_dir)
        try:
            value = _run_trial(trial, run_dir, spec, search, metric, worker)
        except BaseException as err:
            outcome.pruned = isinstance(err, quiet_optuna().TrialPruned)
            outcome.error = None if outcome.pruned else err
            if isinstance(err, Exception) and not outcome.pruned and not outcome.lost_store:
                with contextlib.suppress(Exception):  # for the sweep's report
                    trial.set_user_attr("error", redact(f"{type(err).__name__}: {err}")[:500])
            raise
        outcome.value = value
        return value

    return objective


def _run_trial(
    trial: Any, run_dir: Path, spec: SweepSpec, search: list[SearchParam], metric: str, worker: str
) -> float:
    """Train one trial; its value (``TrialPruned`` when the pruner stopped it)."""
    import tensorweave_train as twt

    optuna = quiet_optuna()
    values = {p.path: p.suggest(trial) for p in search}
    study = trial.study.study_name
    trial.set_user_attr("run_dir", str(run_dir))
    trial.set_user_attr("worker", worker)
    overrides = trial_overrides(spec, values)
    overrides.setdefault("run.name", f"{study}-trial-{trial.number}")
    cfg = twt.load_config(spec.config, overrides)
    started = time.perf_counter()
    with report_to(trial, metric) as rep, _tags(f"sweep:{study}", f"trial:{trial.number}"):
        try:
            summary = twt.train_job(
                cfg,
                run_dir=run_dir,
                source=twt.config_path(spec.config),
                progress=False,
                out=None,
            )
        except KeyboardInterrupt:
            trial.set_user_attr("interrupted", True)  # _worker_main queues its retry
            raise
    seconds = time.perf_counter() - started
    _link_run(trial, run_dir, pruned=rep.pruned_at is not None)
    shown = ", ".join(f"{k}={_fmt(v)}" for k, v in values.items())
    if rep.pruned_at is not None:
        print(
            f"[{worker}] trial {trial.number}: {shown} -> pruned at epoch "
            f"{rep.pruned_at + 1} ({seconds:.1f}s)",
            flush=True,
        )
        raise optuna.TrialPruned(f"pruned at epoch {rep.pruned_at + 1}")
    if metric not in summary["valid"]:
        raise SweepError(
            f"the run reports {sorted(summary['valid'])}, not {metric!r}. Fix: --metric "
            "one of those."
        )
    value = float(summary["valid"][metric])
    print(
        f"[{worker}] trial {trial.number}: {shown} -> {metric} {value:.4f} ({seconds:.1f}s)",
        flush=True,
    )
    return value


@contextlib.contextmanager
def _tags(*tags: str) -> Iterator[None]:
    """Tag the runs the store records meanwhile (its ``TENSORWEAVE_STORE_TAGS``)."""
    old = os.environ.get(TAGS_ENV)
    os.environ[TAGS_ENV] = ",".join([*tags, *([old] if old else [])])
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(TAGS_ENV, None)
        else:
            os.environ[TAGS_ENV] = old


def _link_run(trial: Any, run_dir: Path, *, pruned: bool) -> None:
    """Note the store's id of the trial's run in the trial (when the store recorded it), and
    tag the run ``pruned`` when the sweep stopped it early."""
    from tensorweave_store.errors import StoreError
    from tensorweave_store.store import open_store

    try:
        store = open_store()
        run_id = int(store.run(str(run_dir)).id)
        trial.set_user_attr("store_run", run_id)
        if pruned:
            store.tag_run(run_id, ["pruned"])
    except Exception as err:  # the run directory still says it
        known = isinstance(err, (StoreError, AttributeError, ValueError, TypeError))
        if not known and not is_outage(err):  # recording off, or the store out of reach
            raise


def _fmt(v: Any) -> str:
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def run_worker(spec: SweepSpec, worker: str | None = None) -> int:
    """Run trials of the study until it holds ``spec.trials`` and none is running; returns
    how many trials this worker ran."""
    with using(spec.store):  # the trials' runs go to the study's store, whatever the env says
        return _run_trials(spec, worker or f"{socket.gethostname()}:{os.getpid()}")


def _run_trials(spec: SweepSpec, worker: str) -> int:
    optuna = quiet_optuna()
    name = spec.study_name()
    study = load_study(name, spec)
    metric = str(study.user_attrs.get("metric") or "loss")
    watch = TrialWatch()
    objective = _objective(spec, spec.search(), metric, worker, watch)
    ran = 0
    while True:
        try:
            optuna.storages.fail_stale_trials(study)
            counted, running, waiting = tally(study)
            if counted < spec.trials or waiting:
                study.optimize(objective, n_trials=1, catch=(Exception,), gc_after_trial=True)
                ran += 1
                outcome = watch.take()
                if outcome is not None and outcome.lost_store:  # told failed: run it again
                    _log(worker, settle(study, outcome, max_retry=spec.max_retry))
                continue
            if not running:
                return ran
            time.sleep(max(0.5, spec.heartbeat / 2))  # others' trials: wait, or see them die
        except Exception as err:
            if not is_outage(err):
                raise
            _pause(spec, worker, err)
            outcome = watch.take()
            ran += outcome is not None
            _log(worker, settle(study, outcome, max_retry=spec.max_retry))
            time.sleep(spec.heartbeat)  # the others' trials beat again before stale checks


def _pause(spec: SweepSpec, worker: str, err: BaseException) -> None:
    """Wait for the study's database to answer again (``sweeps.pause``)."""
    wait_for_database(
        err,
        lambda: connect(spec.url(), upgrade=False).dispose(),
        worker=worker,
        url=redact(spec.url()),
        limit=spec.store_wait,
        cap=max(1.0, spec.heartbeat),
        out=lambda line: print(line, flush=True),
    )


def _log(worker: str, line: str | None) -> None:
    if line:
        print(f"[{worker}] {line}", flush=True)


def run_sweep(spec: SweepSpec, *, out: Any = print) -> Any:
    """Create (or join) the study, run ``spec.workers`` worker processes until the study
    is complete, and return it."""
    import subprocess

    study = create_study(spec)
    out(
        f"sweep {study.study_name}: {spec.trials} trials, {spec.workers} worker(s), "
        f"{study.direction.name.lower()} {study.user_attrs.get('metric')}\n"
        f"  storage: {redact(spec.url())}"
    )
    # the URL (and its password) reaches the workers through their environment, which only
    # their user can read, never through their command line, which every local user can (ps)
    env = {**os.environ, "PYTHONUNBUFFERED": "1", STORE_ENV: spec.url()}
    argv = [sys.executable, "-m", "tensorweave_store.sweeps.workers", spec.public().to_json()]
    procs = [subprocess.Popen([*argv, f"w{i + 1}"], env=env) for i in range(spec.workers)]
    try:
        codes = [p.wait() for p in procs]
    except KeyboardInterrupt:  # let the workers queue their trials' retries, then stop them
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
        raise
    bad = [f"w{i + 1} exited {c}" for i, c in enumerate(codes) if c]
    try:
        counted, running, waiting = tally(study)
    except Exception as err:
        if not is_outage(err):
            raise
        _pause(spec, "sweep", err)
        counted, running, waiting = tally(study)
    if counted >= spec.trials and not running and not waiting:
        if bad:  # the others finished the study: the lost trials were retried
            out(f"  note: {', '.join(bad)}; its trial was retried by the other workers")
        _some_completed(study)
        return study
    raise SweepError(
        f"sweep {study.study_name} stopped with {counted} of {spec.trials} trials, "
        f"{len(running)} running, {len(waiting)} waiting ({', '.join(bad) or 'workers ended'}). "
        "Fix: run the same command again; it joins the study, fails the stale trials and "
        "retries them."
    )


def _some_completed(study: Any) -> None:
    """``SweepError`` with the trials' errors when none of the study's trials completed."""
    import optuna

    trials = study.get_trials(deepcopy=False)
    if any(t.state == optuna.trial.TrialState.COMPLETE for t in trials):
        return
    errors = [
        f"  trial {t.number}: {t.user_attrs['error']}" for t in trials if "error" in t.user_attrs
    ]
    raise SweepError(
        f"sweep {study.study_name}: none of its {len(trials)} trials completed"
        + (":\n" + "\n".join(errors[:5]) if errors else "")
        + "\nFix: correct what the trials report (try one with `tensorweave train` and the "
        "same overrides), then sweep again (with --study NEW when the command is unchanged: "
        "this study already holds its trials)."
    )


def _worker_main(argv: Sequence[str]) -> int:
    spec = SweepSpec.from_json(argv[0])
    label = argv[1] if len(argv) > 1 else None
    worker = f"{label}@{socket.gethostname()}:{os.getpid()}" if label else None
    try:
        run_worker(spec, worker)
    except tw.TensorweaveError as err:
        print(f"error: {redact(err)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        requeue_interrupted(spec, worker)
        return 130
    return 0


def requeue_interrupted(spec: SweepSpec, worker: str | None) -> list[int]:
    """Queue a retry of the trials Ctrl-C interrupted in ``worker`` (Optuna marks them
    failed; unlike a killed worker's, no heartbeat will bring them back)."""
    import optuna

    study = load_study(spec.study_name(), spec)
    retry = retry_class()(max_retry=spec.max_retry)
    done = []
    for t in study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.FAIL,)):
        if t.user_attrs.get("interrupted") and t.user_attrs.get("worker") == worker:
            retry(study, t)
            done.append(t.number)
    return done


if __name__ == "__main__":  # a worker process started by run_sweep
    raise SystemExit(_worker_main(sys.argv[1:]))
