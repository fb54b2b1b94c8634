"""A sweep worker whose database goes away pauses instead of failing its trials: the pause
itself (backoff, one message, the limit), settling the trial it ran, and the real
``tensorweave sweep`` with its PostgreSQL server stopped mid-trial and started again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import pytest
from twstore_helpers import SWEEP_TINY, PgControl, store_env

from tensorweave_store.errors import StoreUnreachableError
from tensorweave_store.store import Store
from tensorweave_store.sweeps.pause import TrialOutcome, settle, wait_for_database
from tensorweave_store.sweeps.search_space import SweepError

TINY = SWEEP_TINY


def _wait(probe: Any, limit: float = 600.0) -> tuple[list[str], list[float], float]:
    lines: list[str] = []
    sleeps: list[float] = []
    paused = wait_for_database(
        StoreUnreachableError("connection refused"),
        probe,
        worker="w1@h:1",
        url="postgresql+psycopg://u:***@db/x",
        limit=limit,
        cap=5.0,
        out=lines.append,
        sleep=sleeps.append,
    )
    return lines, sleeps, paused


def test_a_pause_says_so_once_backs_off_and_says_when_the_database_is_back() -> None:
    answers = iter([StoreUnreachableError("still down")] * 4 + [None])

    def probe() -> None:
        err = next(answers)
        if err is not None:
            raise err

    lines, sleeps, _ = _wait(probe)
    assert sleeps == [1.0, 2.0, 4.0, 5.0, 5.0]  # doubling, up to the cap
    assert len(lines) == 2
    assert lines[0].startswith("[w1@h:1] lost the sweep database postgresql+psycopg://u:***@db/x")
    assert "paused, retrying with backoff" in lines[0] and "connection refused" in lines[0]
    assert lines[1].startswith("[w1@h:1] the sweep database is back after")


def test_a_pause_gives_up_after_its_limit_with_the_fix() -> None:
    def probe() -> None:
        raise StoreUnreachableError("down")

    with pytest.raises(SweepError, match="still out of reach after") as err:
        _wait(probe, limit=0.0)
    assert "run the same command again" in str(err.value)


def test_a_probe_that_fails_for_another_reason_is_not_waited_for() -> None:
    def probe() -> None:
        raise ValueError("a bug")

    with pytest.raises(ValueError, match="a bug"):
        _wait(probe)


@pytest.fixture
def study(tmp_path: Path) -> Any:
    import optuna

    warnings.filterwarnings("ignore", module="optuna")  # its notices of its own changes
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    return optuna.create_study(storage=f"sqlite:///{tmp_path}/s.db", direction="maximize")


def _running(study: Any) -> Any:
    trial = study.ask()
    trial.suggest_float("lr", 0.001, 0.1)
    return trial


def test_settling_records_the_value_a_trial_reached_while_the_database_was_away(
    study: Any, tmp_path: Path
) -> None:
    trial = _running(study)
    said = settle(study, TrialOutcome(trial.number, tmp_path, value=0.75), max_retry=2)
    assert said == f"trial {trial.number}: recorded its result, 0.7500"
    assert study.trials[0].state.name == "COMPLETE" and study.trials[0].value == 0.75


def test_settling_a_trial_that_failed_for_want_of_the_database_queues_it_again(
    study: Any, tmp_path: Path
) -> None:
    trial = _running(study)
    lost = TrialOutcome(trial.number, tmp_path, error=StoreUnreachableError("down"))
    assert "queued again" in str(settle(study, lost, max_retry=2))
    first, retry = study.get_trials()
    assert (first.state.name, retry.state.name) == ("FAIL", "WAITING")
    assert retry.params == first.params
    assert settle(study, lost, max_retry=2) is None  # already queued: not twice


def test_settling_keeps_a_trial_that_failed_on_its_own_failed(study: Any, tmp_path: Path) -> None:
    trial = _running(study)
    own = TrialOutcome(trial.number, tmp_path, error=ValueError("bad values"))
    assert "recorded as failed (bad values)" in str(settle(study, own, max_retry=2))
    assert [t.state.name for t in study.get_trials()] == ["FAIL"]


def _training_worker(url: str, name: str, store: Store) -> int | None:
    """The pid of the worker whose running trial has recorded an epoch, if any."""
    import optuna

    try:
        trials = optuna.load_study(study_name=name, storage=url).get_trials(
            deepcopy=False, states=(optuna.trial.TrialState.RUNNING,)
        )
        for t in trials:
            run = store.run(t.user_attrs["run_dir"])
            if run.epochs_done >= 1:
                return int(t.user_attrs["worker"].rsplit(":", 1)[1])
    except Exception:  # no study, trial attribute or run yet
        pass
    return None


@pytest.mark.slow
def test_a_worker_pauses_while_its_postgresql_server_is_down(
    pg_faults: PgControl, tmp_path: Path
) -> None:
    """The server stops while a trial trains (its worker held still meanwhile, so that the
    trial cannot end first) and starts again once the worker said it paused: the trial
    trains on, its result is recorded when the database is back, the sweep ends with exit
    0, and the study holds 3 completed trials, each a finished store run with every epoch."""
    import optuna

    from tensorweave_store.store import open_store
    from tensorweave_store.sweeps.study import tally

    url, name = pg_faults.fresh_database(), "paused"
    args = ["sweep", "digits", "--param", "optimizer.learning_rate=loguniform(1e-3,1e-1)"]
    args += ["--trials", "3", "--heartbeat", "2", "--study", name, "--pruner", "none"]
    log = tmp_path / "out.txt"
    script = Path(sys.executable).with_name("tensorweave")
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [str(script), *args, "--store", url, *TINY, "--train.epochs=6"],
            env=store_env(url, tmp_path),
            cwd=tmp_path,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
        )
    store = open_store(url, blobs=str(tmp_path / "blobs"), cached=False)
    try:
        deadline = time.monotonic() + 600
        while (worker := _training_worker(url, name, store)) is None:
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        os.kill(worker, signal.SIGSTOP)
        store.engine.dispose()
        pg_faults.stop()
        os.kill(worker, signal.SIGCONT)
        while "lost the sweep database" not in log.read_text():
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.3)
        pg_faults.start()
        proc.wait(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
        pg_faults.ensure_running()
    text = log.read_text()
    assert proc.returncode == 0, text
    assert text.count("lost the sweep database") == 1 and "the sweep database is back" in text
    # The trial held still may end before or after the database is back (when the result is
    # told at once or settled later): either way none is recorded as failed.
    assert "recorded as failed" not in text

    warnings.filterwarnings("ignore", module="optuna")  # its notices of its own changes
    study = optuna.load_study(study_name=name, storage=url)
    assert tally(study) == (3, [], [])
    trials = study.get_trials()
    assert [t.state.name for t in trials] == ["COMPLETE"] * 3, text
    try:
        for t in trials:
            run = store.run(t.user_attrs["run_dir"])
            assert (run.status, run.epochs_done) == ("finished", 6), text
            assert run.id == t.user_attrs.get("store_run", run.id)
    finally:
        store.close()
