"""The real ``tensorweave sweep`` command: a sweep whose trials all fail exits non-zero, and
two workers on two "hosts" (separate working directories, runs roots and blob directories)
that share nothing but the PostgreSQL URL run one study together."""

from __future__ import annotations

import os
import re
import signal
import time
import warnings
from pathlib import Path

import pytest
from twstore_helpers import SWEEP_TINY, store_env, tensorweave

from tensorweave.cli import main as cli_main

TINY = SWEEP_TINY

pytestmark = pytest.mark.slow


def test_a_sweep_where_no_trial_completes_exits_1_with_the_trials_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TENSORWEAVE_RUNS", str(tmp_path / "runs"))
    monkeypatch.setenv("TENSORWEAVE_STORE_BLOBS", str(tmp_path / "blobs"))
    args = ["sweep", "digits", "--param", "data.valid_fraction=choice(1.5)", "--trials", "2"]
    assert cli_main([*args, "--store", f"sqlite:///{tmp_path}/s.db", *TINY]) == 1
    err = capsys.readouterr().err
    assert re.search(r"error: sweep sweep-digits-\w+: none of its 2 trials completed:", err), err
    assert "  trial 0: " in err and "  trial 1: " in err and "Fix:" in err


def _running_workers(url: str, name: str) -> list[str]:
    """The workers (``wK@HOST:PID``) of the study's running trials, oldest trial first."""
    import optuna

    try:
        trials = optuna.load_study(study_name=name, storage=url).get_trials(
            deepcopy=False, states=(optuna.trial.TrialState.RUNNING,)
        )
    except Exception:  # the study is not created yet
        return []
    return [str(t.user_attrs["worker"]) for t in trials if "worker" in t.user_attrs]


def test_two_workers_sharing_only_the_database_url_run_one_study(pg_url: str, tmp_path: Path):
    """The same command on two hosts joins one study: every trial is run once (one store run
    each, in the runs root of the host that ran it), both hosts ran trials, and both report
    the study's best trial.

    So that both hosts run a trial however unequal their start-up on a loaded machine, the
    first worker seen training is held (SIGSTOP) until the other one trains too; a heartbeat
    of 30 s keeps its trial from looking dead meanwhile."""
    import optuna

    from tensorweave_store.store import open_store
    from tensorweave_store.sweeps.search_space import SweepSpec
    from tensorweave_store.sweeps.study import tally

    param = "optimizer.learning_rate=loguniform(1e-3,1e-1)"
    name = SweepSpec("digits", [param], overrides=TINY).study_name()  # made from the command
    command = ["sweep", "digits", "--param", param, "--trials", "4", "--pruner", "none"]
    command += ["--heartbeat", "30", "--store", pg_url, *TINY]
    homes = [tmp_path / "host-a", tmp_path / "host-b"]
    for home in homes:
        home.mkdir()
    procs = [tensorweave(command, store_env(None, home), home) for home in homes]
    held = None
    try:
        deadline = time.monotonic() + 600
        while len(set(workers := _running_workers(pg_url, name))) < 2:
            if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
                for p in procs:
                    p.kill()
                pytest.fail(f"the two hosts did not both train: {[p.communicate() for p in procs]}")
            if workers and held is None:
                held = int(workers[0].rsplit(":", 1)[1])
                os.kill(held, signal.SIGSTOP)
            time.sleep(0.3)
    finally:
        if held is not None:
            os.kill(held, signal.SIGCONT)
    outs = [p.communicate(timeout=900) for p in procs]
    for p, (out, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0, out + err
    for out, _ in outs:
        assert f"sweep {name}: 4 trials, 1 worker(s)" in out

    warnings.filterwarnings("ignore", module="optuna")  # its notices of its own changes
    study = optuna.load_study(study_name=name, storage=pg_url)
    counted, running, waiting = tally(study)
    # two workers asking at the same instant may add one trial (documented)
    assert counted in (4, 5) and not running and not waiting
    trials = study.get_trials()
    assert all(t.state == optuna.trial.TrialState.COMPLETE for t in trials)
    workers = {t.user_attrs["worker"] for t in trials}
    assert len(workers) == 2, workers  # both hosts ran trials
    dirs = [Path(t.user_attrs["run_dir"]) for t in trials]
    assert len(set(dirs)) == len(trials)
    for d in dirs:
        assert sum(home in d.parents for home in homes) == 1 and (d / "summary.json").exists()

    store = open_store(pg_url, blobs=str(tmp_path / "blobs"), cached=False)
    try:
        runs = store.runs(tags=[f"sweep:{name}"])
        assert sorted(r.id for r in runs) == sorted(t.user_attrs["store_run"] for t in trials)
        assert {r.status for r in runs} == {"finished"}
        assert sorted(r.run_dir for r in runs) == sorted(str(d.resolve()) for d in dirs)
    finally:
        store.close()

    best = study.best_trial
    for out, _ in outs:
        best_rows = out.split("best trials:", 1)[1].splitlines()[2]
        assert best_rows.split()[:2] == [str(best.number), f"{best.value:.4f}"], out
