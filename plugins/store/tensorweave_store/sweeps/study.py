"""A sweep's Optuna study in the store's database: its storage, creation and tally.

``storage(spec)`` is Optuna's RDB storage on the store's URL, with heartbeats and the retry
of trials whose worker died (its heartbeat skips a beat, rather than dying, while the
database is out of reach); ``check_params`` checks every ``--param`` path against the
config; ``create_study`` checks the command (config, params) once and creates the study
(or loads it, to join it); ``load_study`` finds it by name; ``tally``
counts the trials towards ``--trials N`` (a killed trial and its retry count once). The
workers that run the trials are in ``sweep``.

>>> _direction(SweepSpec("digits", []), "val_loss"), _direction(SweepSpec("d", []), "accuracy")
('minimize', 'maximize')
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tensorweave_store.db.engine import safe_cause, split_secrets
from tensorweave_store.db.urls import redact
from tensorweave_store.sweeps.search_space import SweepError, SweepSpec, check_paths

__all__ = [
    "storage",
    "retry_class",
    "check_params",
    "create_study",
    "load_study",
    "tally",
    "quiet_optuna",
    "trial_overrides",
]


def quiet_optuna() -> Any:
    """Optuna, its logging at WARNING and its experimental warnings off."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    return optuna


def storage(spec: SweepSpec) -> Any:
    """Optuna's RDB storage on the store's database, with heartbeats and retries."""
    quiet_optuna()
    url = spec.url()
    if url.startswith("sqlite:///"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    kwargs: dict[str, Any] = {"pool_pre_ping": True}
    try:
        bare, secrets = split_secrets(url)  # Optuna keeps (and may show) a URL without them
    except (ValueError, ImportError) as err:
        raise SweepError(
            f"cannot use the store URL {redact(url)}: {redact(err)}. Fix: check --store or "
            "TENSORWEAVE_STORE."
        ) from safe_cause(err)
    if url.startswith("sqlite"):
        kwargs["connect_args"] = {"timeout": 60}
    elif secrets:
        kwargs["connect_args"] = secrets
    try:
        return _storage_class()(
            bare,
            engine_kwargs=kwargs,
            heartbeat_interval=max(1, int(spec.heartbeat)),
            grace_period=max(2, int(3 * spec.heartbeat)),
            heartbeat_stale_trial_callback=retry_class()(max_retry=spec.max_retry),
        )
    except Exception as err:  # SQLAlchemy's OperationalError and friends
        raise SweepError(
            f"cannot open the sweep storage at {redact(url)}: {redact(err)}. Fix: check the "
            "store URL (--store or TENSORWEAVE_STORE) and that the database server is reachable."
        ) from safe_cause(err)


def _storage_class() -> Any:
    """Optuna's RDB storage whose trial heartbeat outlives a lost database: the beat is
    skipped while the database is out of reach (the worker pauses, ``sweeps.pause``), and
    the heartbeat thread beats again when it is back."""
    import optuna

    from tensorweave_store.db.outage import is_outage

    class PatientRDBStorage(optuna.storages.RDBStorage):
        def record_heartbeat(self, trial_id: int) -> None:
            try:
                super().record_heartbeat(trial_id)
            except Exception as err:
                if not is_outage(err):
                    raise

    return PatientRDBStorage


def retry_class() -> Any:
    """Optuna's callback that re-queues a trial whose worker died (renamed in Optuna 4.9)."""
    import optuna

    found = getattr(optuna.storages, "RetryHeartbeatStaleTrialCallback", None)
    return found or optuna.storages.RetryFailedTrialCallback


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


def trial_overrides(spec: SweepSpec, values: Mapping[str, Any]) -> dict[str, Any]:
    """The command's ``--a.b=v`` overrides with the trial's ``values`` on top."""
    import tensorweave.config as twc

    out = dict(twc.parse_override(o) for o in spec.overrides)
    out.update(values)
    return out


def _pruner(name: str) -> Any:
    optuna = quiet_optuna()
    if name == "median":
        return optuna.pruners.MedianPruner(n_startup_trials=4, n_warmup_steps=1)
    if name == "none":
        return optuna.pruners.NopPruner()
    raise SweepError(f"--pruner must be median or none, not {name!r}")


def check_params(spec: SweepSpec) -> None:
    """Check every ``--param`` path against the command's config (its overrides applied,
    filled with the components' defaults): ``SweepError`` with the closest path."""
    import tensorweave.config as twc
    import tensorweave_train as twt

    search = spec.search()
    if not search:
        raise SweepError("a sweep needs at least one --param PATH=DIST")
    check_paths(search, twc.fill(twt.load_config(spec.config, trial_overrides(spec, {}))))


def create_study(spec: SweepSpec) -> Any:
    """Check the command (config, params) and create the study, or load it to join it."""
    import tensorweave_train as twt

    optuna = quiet_optuna()
    if spec.trials < 1 or spec.workers < 1:
        raise SweepError("--trials and --workers must be at least 1")
    check_params(spec)
    search = spec.search()
    first = {p.path: p.args[0] for p in search}  # any value: the config is checked once
    cfg = twt.load_config(spec.config, trial_overrides(spec, first))
    twt.validate_config(cfg)  # every problem of the config at once, before any worker starts
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
    if "tensorweave_spec" not in attrs:  # without the store URL: no secret in the database
        study.set_user_attr("tensorweave_spec", json.loads(spec.public().to_json()))
        study.set_user_attr("metric", metric)
    elif sorted(attrs["tensorweave_spec"].get("params", [])) != sorted(spec.params):
        raise SweepError(
            f"study {name!r} already searches {attrs['tensorweave_spec']['params']}, not "
            f"{spec.params}. Fix: pass another --study name, or the same --param options."
        )
    return study


def load_study(name: str, spec: SweepSpec) -> Any:
    """An existing study by name (``SweepError`` listing the studies there when absent)."""
    from tensorweave_store.names import check_name

    check_name(name, "study")
    optuna = quiet_optuna()
    store = storage(spec)
    names = optuna.get_all_study_names(store)
    if name not in names:
        raise SweepError(
            f"no sweep study {name!r} in {redact(spec.url())}; studies: "
            f"{', '.join(names) or 'none'}. Fix: pass one of them (and the same --store)."
        )
    return optuna.load_study(study_name=name, storage=store, pruner=_pruner(spec.pruner))


def tally(study: Any) -> tuple[int, list[Any], list[Any]]:
    """(trials that count towards N, those running, those waiting): a failed trial that
    was retried is counted through its retry only."""
    optuna = quiet_optuna()
    retry = retry_class()
    trials = study.get_trials(deepcopy=False)
    retried = {retry.retried_trial_number(t) for t in trials} - {None}
    counted = [t for t in trials if t.number not in retried]
    running = [t for t in counted if t.state == optuna.trial.TrialState.RUNNING]
    waiting = [t for t in counted if t.state == optuna.trial.TrialState.WAITING]
    return len(counted), running, waiting
