"""A sweep worker whose database goes away: it pauses instead of failing its trials.

The study lives in the store's database, so a worker touches it between and during trials
(asking for a trial, its heartbeat, each epoch's report, telling the result). When one of
these finds the database out of reach (``outage.is_outage``), the worker prints one line
naming the database and what it does, then retries with backoff (1 s, doubling, up to a
heartbeat interval) until the database answers again, or gives up after
``--store-wait`` seconds (``SweepError``: run the same command again later). Meanwhile the
trial being trained goes on (its run's records wait in the run directory; the pruner is
not asked), and when the database is back the worker settles that trial: it records the
result the trial reached, or, when the trial itself failed for want of the database, fails
it and queues a retry with the same values. It then waits one heartbeat interval before
starting trials, so that the other workers' trials beat again before anyone looks for
stale ones.

>>> backoff(1), backoff(3), backoff(10, cap=5.0)
(1.0, 4.0, 5.0)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tensorweave_store.db.outage import is_outage, reason
from tensorweave_store.db.urls import redact
from tensorweave_store.sweeps.search_space import SweepError

__all__ = ["TrialOutcome", "TrialWatch", "backoff", "wait_for_database", "settle"]


@dataclass
class TrialOutcome:
    """How the trial a worker ran ended, as far as the worker knows."""

    number: int
    run_dir: Path
    value: float | None = None
    pruned: bool = False
    error: BaseException | None = None

    @property
    def lost_store(self) -> bool:
        """The trial failed because the database (or the store) was out of reach."""
        return self.error is not None and is_outage(self.error)


class TrialWatch:
    """The trial this worker runs now (``current``), filled in by the objective."""

    def __init__(self) -> None:
        self.current: TrialOutcome | None = None

    def start(self, number: int, run_dir: Path) -> TrialOutcome:
        self.current = TrialOutcome(number, run_dir)
        return self.current

    def take(self) -> TrialOutcome | None:
        """The current outcome, forgotten here."""
        out, self.current = self.current, None
        return out


def backoff(attempt: int, cap: float = 30.0) -> float:
    """Seconds before retry ``attempt`` (1-based): 1, 2, 4, … up to ``cap``."""
    return float(min(cap, 2 ** (attempt - 1)))


def wait_for_database(
    error: BaseException,
    probe: Callable[[], Any],
    *,
    worker: str,
    url: str,
    limit: float,
    cap: float,
    out: Callable[[str], None],
    sleep: Callable[[float], None] = time.sleep,
) -> float:
    """Pause until ``probe()`` reaches the database again; returns the seconds paused.
    ``SweepError`` after ``limit`` seconds."""
    started = time.monotonic()
    out(
        f"[{worker}] lost the sweep database {url} ({reason(error)}): paused, retrying with "
        f"backoff for up to {limit:.0f}s; the study keeps the trials run so far, and the "
        "trial running here is recorded when the database is back"
    )
    attempt = 0
    while True:
        attempt += 1
        waited = time.monotonic() - started
        if waited >= limit:
            raise SweepError(
                f"[{worker}] the sweep database {url} is still out of reach after "
                f"{waited:.0f}s ({reason(error)}); this worker stops. Fix: bring the database "
                "back, then run the same command again: it joins the study and retries the "
                "lost trials (--store-wait SECONDS waits longer)."
            )
        sleep(min(backoff(attempt, cap), max(0.0, limit - waited)))
        try:
            probe()
        except Exception as err:
            if not is_outage(err):
                raise
            error = err
            continue
        seconds = time.monotonic() - started
        out(f"[{worker}] the sweep database is back after {seconds:.0f}s; continuing")
        return seconds


def settle(study: Any, outcome: TrialOutcome | None, *, max_retry: int) -> str | None:
    """Record, now that the database is back, how the trial this worker ran ended (its
    value, pruned, or failed for want of the database: failed and queued again with the
    same values); returns what was done, for the worker's log."""
    from tensorweave_store.sweeps.study import quiet_optuna, retry_class

    if outcome is None:
        return None
    optuna = quiet_optuna()
    state = optuna.trial.TrialState
    trial = next(t for t in study.get_trials(deepcopy=False) if t.number == outcome.number)
    _sync_run(outcome.run_dir)
    own_error = outcome.error is not None and not outcome.lost_store
    if trial.state == state.RUNNING:
        if outcome.value is not None:
            study.tell(outcome.number, outcome.value)
            return f"trial {outcome.number}: recorded its result, {outcome.value:.4f}"
        if outcome.pruned:
            study.tell(outcome.number, state=state.PRUNED)
            return f"trial {outcome.number}: recorded as pruned"
        study.tell(outcome.number, state=state.FAIL)
        if own_error:
            return f"trial {outcome.number}: recorded as failed ({outcome.error})"
    elif trial.state != state.FAIL or own_error:
        return None  # told before the database went away, or failed on its own
    retry = retry_class()
    trials = study.get_trials(deepcopy=False)
    if any(retry.retried_trial_number(t) == outcome.number for t in trials):
        return None  # another worker found it stale and queued it again
    failed = next(t for t in trials if t.number == outcome.number)
    retry(max_retry=max_retry)(study, failed)
    return f"trial {outcome.number}: failed for want of the database, queued again"


def _sync_run(run_dir: Path) -> None:
    """Write what the trial's run kept while the store was away (its backlog)."""
    from tensorweave_store.runs.backlog import BACKLOG_FILE

    if not (run_dir / BACKLOG_FILE).exists():
        return
    import warnings

    from tensorweave_store.db.outage import StoreOutageWarning
    from tensorweave_store.runs.handle import sync_backlog
    from tensorweave_store.store import open_store

    try:
        sync_backlog(open_store(), run_dir)
    except Exception as err:  # the trial's result matters more than its run's record
        warnings.warn(
            f"tensorweave-store: could not record the backlog of {run_dir} ({redact(err)}); "
            f"run `tensorweave runs sync {run_dir}` later.",
            StoreOutageWarning,
            stacklevel=2,
        )
