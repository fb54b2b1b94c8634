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

The search space and the spec are in ``tensorweave_store.search_space``.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import sys
import time
import warnings
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import tensorweave as tw
from tensorweave_store.pruning import report_to
from tensorweave_store.search_space import KINDS, SearchParam, SweepError, SweepSpec, parse_param

__all__ = [
    "KINDS",
    "SweepError",
    "SearchParam",
    "SweepSpec",
    "parse_param",
    "storage",
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


def _quiet_optuna() -> Any:
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    return optuna


def storage(spec: SweepSpec) -> Any:
    """Optuna's RDB storage on the store's database, with heartbeats and retries."""
    optuna = _quiet_optuna()
    url = spec.url()
    if url.startswith("sqlite:///"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    kwargs: dict[str, Any] = {"pool_pre_ping": True}
    if url.startswith("sqlite"):
        kwargs["connect_args"] = {"timeout": 60}
    try:
        return optuna.storages.RDBStorage(
            url,
            engine_kwargs=kwargs,
            heartbeat_interval=max(1, int(spec.heartbeat)),
            grace_period=max(2, int(3 * spec.heartbeat)),
            heartbeat_stale_trial_callback=retry_class()(max_retry=spec.max_retry),
        )
    except Exception as err:  # SQLAlchemy's OperationalError and friends
        raise SweepError(
            f"cannot open the sweep storage at {_safe(url)}: {err}. Fix: check the store URL "
            "(--store or TENSORWEAVE_STORE) and that the database server is reachable."
        ) from err


def retry_class() -> Any:
    """Optuna's callback that re-queues a trial whose worker died (renamed in Optuna 4.9)."""
    import optuna

    found = getattr(optuna.storages, "RetryHeartbeatStaleTrialCallback", None)
    return found or optuna.storages.RetryFailedTrialCallback


def _safe(url: str) -> str:
    """The URL without a password."""
    head, at, tail = url.rpartition("@")
    if not at or "://" not in head:
        return url
    scheme, _, cred = head.partition("://")
    return f"{scheme}://{cred.split(':', 1)[0]}:***@{tail}"


def _direction(spec: SweepSpec, metric: str) -> str:
    if spec.direction:
        if spec.direction not in ("minimize", "maximize"):
            raise SweepError(f"--direction must be minimize or maximize, not {spec.direction!r}")
        return spec.direction
    low = ("loss", "error", "perplexity", "mae", "mse")
    return "minimize" if any(w in metric for w in low) else "maximize"


def _metric(spec: SweepSpec, cfg: Mapping[str, Any]) -> str:
    if spec.metric:
        return spec.metric.removeprefix("val_")
    metrics = cfg.get("model", {}).get("metrics", {})
    if isinstance(metrics, Mapping) and metrics:
        return str(next(iter(metrics)))
    if isinstance(metrics, list) and metrics:
        return str(metrics[0])
    if isinstance(metrics, str):
        return metrics
    return "loss"


def _trial_overrides(spec: SweepSpec, values: Mapping[str, Any]) -> dict[str, Any]:
    import tensorweave.config as twc

    out = dict(twc.parse_override(o) for o in spec.overrides)
    out.update(values)
    return out


def _pruner(name: str) -> Any:
    optuna = _quiet_optuna()
    if name == "median":
        return optuna.pruners.MedianPruner(n_startup_trials=4, n_warmup_steps=1)
    if name == "none":
        return optuna.pruners.NopPruner()
    raise SweepError(f"--pruner must be median or none, not {name!r}")


def create_study(spec: SweepSpec) -> Any:
    """Check the command (config, params) and create the study, or load it to join it."""
    from tensorweave_train import job as jobs

    optuna = _quiet_optuna()
    search = spec.search()
    if not search:
        raise SweepError("a sweep needs at least one --param PATH=DIST")
    if spec.trials < 1 or spec.workers < 1:
        raise SweepError("--trials and --workers must be at least 1")
    first = {p.path: p.args[0] for p in search}  # any value: the config is checked once
    cfg = jobs.load_config(spec.config, _trial_overrides(spec, first))
    jobs.validate_job(cfg)  # every problem of the config at once, before any worker starts
    metric = _metric(spec, cfg)
    direction = _direction(spec, metric)
    name = spec.study_name()
    study = optuna.create_study(
        storage=storage(spec),
        study_name=name,
        direction=direction,
        load_if_exists=True,
        pruner=_pruner(spec.pruner),
    )
    attrs = study.user_attrs
    if "tensorweave_spec" not in attrs:
        study.set_user_attr("tensorweave_spec", json.loads(spec.to_json()))
        study.set_user_attr("metric", metric)
    elif sorted(attrs["tensorweave_spec"].get("params", [])) != sorted(spec.params):
        raise SweepError(
            f"study {name!r} already searches {attrs['tensorweave_spec']['params']}, not "
            f"{spec.params}. Fix: pass another --study name, or the same --param options."
        )
    return study


def load_study(name: str, spec: SweepSpec) -> Any:
    """An existing study by name (``SweepError`` listing the studies there when absent)."""
    optuna = _quiet_optuna()
    store = storage(spec)
    names = optuna.get_all_study_names(store)
    if name not in names:
        raise SweepError(
            f"no sweep study {name!r} in {_safe(spec.url())}; studies: "
            f"{', '.join(names) or 'none'}. Fix: pass one of them (and the same --store)."
        )
    return optuna.load_study(study_name=name, storage=store, pruner=_pruner(spec.pruner))


def tally(study: Any) -> tuple[int, list[Any], list[Any]]:
    """(trials that count towards N, those running, those waiting): a failed trial that
    was retried is counted through its retry only."""
    import optuna

    retry = retry_class()
    trials = study.get_trials(deepcopy=False)
    retried = {retry.retried_trial_number(t) for t in trials} - {None}
    counted = [t for t in trials if t.number not in retried]
    running = [t for t in counted if t.state == optuna.trial.TrialState.RUNNING]
    waiting = [t for t in counted if t.state == optuna.trial.TrialState.WAITING]
    return len(counted), running, waiting


def _objective(spec: SweepSpec, search: list[SearchParam], metric: str, worker: str) -> Any:
    from tensorweave_train import job as jobs

    optuna = _quiet_optuna()

    def objective(trial: Any) -> float:
        values = {p.path: p.suggest(trial) for p in search}
        study = trial.study.study_name
        run_dir = spec.root() / "sweeps" / study / f"trial-{trial.number:04d}"
        trial.set_user_attr("run_dir", str(run_dir))
        trial.set_user_attr("worker", worker)
        overrides = _trial_overrides(spec, values)
        overrides.setdefault("run.name", f"{study}-trial-{trial.number}")
        cfg = jobs.load_config(spec.config, overrides)
        started = time.perf_counter()
        with report_to(trial, metric) as rep, _tags(f"sweep:{study}", f"trial:{trial.number}"):
            try:
                summary = jobs.train(
                    cfg,
                    run_dir=run_dir,
                    source=jobs.config_path(spec.config),
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

    return objective


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
    except (StoreError, AttributeError, ValueError, TypeError):
        pass  # recording off (TENSORWEAVE_STORE_RECORD=0): the run directory still says it


def _fmt(v: Any) -> str:
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def run_worker(spec: SweepSpec, worker: str | None = None) -> int:
    """Run trials of the study until it holds ``spec.trials`` and none is running; returns
    how many trials this worker ran."""
    optuna = _quiet_optuna()
    worker = worker or f"{socket.gethostname()}:{os.getpid()}"
    if spec.store:
        os.environ.setdefault("TENSORWEAVE_STORE", spec.store)  # the runs go there too
    name = spec.study_name()
    study = load_study(name, spec)
    metric = str(study.user_attrs.get("metric") or "loss")
    objective = _objective(spec, spec.search(), metric, worker)
    ran = 0
    while True:
        optuna.storages.fail_stale_trials(study)
        counted, running, waiting = tally(study)
        if counted < spec.trials or waiting:
            study.optimize(objective, n_trials=1, catch=(Exception,), gc_after_trial=True)
            ran += 1
            continue
        if not running:
            return ran
        time.sleep(max(0.5, spec.heartbeat / 2))  # others' trials: wait, or see them die


def run_sweep(spec: SweepSpec, *, out: Any = print) -> Any:
    """Create (or join) the study, run ``spec.workers`` worker processes until the study
    is complete, and return it."""
    import subprocess

    study = create_study(spec)
    out(
        f"sweep {study.study_name}: {spec.trials} trials, {spec.workers} worker(s), "
        f"{study.direction.name.lower()} {study.user_attrs.get('metric')}\n"
        f"  storage: {_safe(spec.url())}"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "tensorweave_store.sweep", spec.to_json(), f"w{i + 1}"],
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        for i in range(spec.workers)
    ]
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
    counted, running, waiting = tally(study)
    if counted >= spec.trials and not running and not waiting:
        if bad:  # the others finished the study: the lost trials were retried
            out(f"  note: {', '.join(bad)}; its trial was retried by the other workers")
        return study
    raise SweepError(
        f"sweep {study.study_name} stopped with {counted} of {spec.trials} trials, "
        f"{len(running)} running, {len(waiting)} waiting ({', '.join(bad) or 'workers ended'}). "
        "Fix: run the same command again; it joins the study, fails the stale trials and "
        "retries them."
    )


def _worker_main(argv: Sequence[str]) -> int:
    spec = SweepSpec.from_json(argv[0])
    label = argv[1] if len(argv) > 1 else None
    worker = f"{label}@{socket.gethostname()}:{os.getpid()}" if label else None
    try:
        run_worker(spec, worker)
    except tw.TensorweaveError as err:
        print(f"error: {err}", file=sys.stderr)
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
