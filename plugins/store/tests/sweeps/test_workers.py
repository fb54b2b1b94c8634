"""Sweeps: parameter syntax, and real sweeps with 2 worker processes on SQLite and PostgreSQL,
one worker killed (SIGKILL) mid-trial."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import warnings
from pathlib import Path
from typing import Any

import pytest
from twstore_helpers import SWEEP_TINY, store_env, tensorweave

import tensorweave_train as twt
from tensorweave.cli import main as cli_main
from tensorweave_store.sweeps.workers import (
    SweepError,
    SweepSpec,
    create_study,
    parse_param,
    report_to,
    requeue_interrupted,
    retry_class,
    run_worker,
    tally,
)

TINY = SWEEP_TINY


@pytest.mark.parametrize(
    ("text", "kind", "args"),
    [
        ("optimizer.learning_rate=loguniform(1e-4,1e-1)", "loguniform", (1e-4, 0.1)),
        ("--train.batch_size=int(16, 128, 16)", "int", (16, 128, 16)),
        ("dims.hidden=logint(8,256)", "logint", (8, 256)),
        ("model.nodes.h1.activation=choice(relu, tanh)", "choice", ("relu", "tanh")),
        ("x.y=categorical([1,2],[3])", "choice", ([1, 2], [3])),
        ("x.y=uniform(0,1,0.25)", "uniform", (0.0, 1.0, 0.25)),
    ],
)
def test_param_syntax(text: str, kind: str, args: tuple[Any, ...]) -> None:
    p = parse_param(text)
    assert (p.kind, p.args) == (kind, args)
    assert "." in p.path and not p.path.startswith("-")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("optimizer.learning_rate", "cannot read"),
        ("a.b=gauss(0,1)", "unknown distribution 'gauss'"),
        ("a.b=uniform(1,0)", "LO must be below HI"),
        ("a.b=loguniform(0,1)", "needs LO > 0"),
        ("a.b=int(a,b)", "takes numbers"),
        ("a.b=choice()", "at least one value"),
    ],
)
def test_param_mistakes_say_how_to_write_it(text: str, problem: str) -> None:
    with pytest.raises(SweepError, match=problem):
        parse_param(text)


def test_the_same_command_names_the_same_study() -> None:
    a = SweepSpec("digits", ["b.c=uniform(0,1)", "a.b=int(1,3)"], overrides=["--x.y=1"])
    b = SweepSpec("digits", ["a.b=int(1,3)", "b.c=uniform(0,1)"], overrides=["--x.y=1"], trials=9)
    c = SweepSpec("digits", ["a.b=int(1,3)"], overrides=["--x.y=1"])
    assert a.study_name() == b.study_name() != c.study_name()
    assert a.study_name().startswith("sweep-digits-")
    assert SweepSpec.from_json(a.to_json()) == a


def test_cli_mistakes_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["sweep", "digits", "--trials", "2"]) == 2
    assert "at least one --param" in capsys.readouterr().err
    assert cli_main(["sweep", "--param", "a.b=gauss(1,2)"]) == 2
    assert "unknown distribution" in capsys.readouterr().err
    assert cli_main(["sweep", "show"]) == 2
    assert "STUDY" in capsys.readouterr().err
    assert cli_main(["cv", "--folds", "1"]) == 2
    assert "at least 2" in capsys.readouterr().err


def test_pruning_stops_a_trial_through_the_epoch_events(tmp_path: Path) -> None:
    import optuna

    warnings.filterwarnings("ignore", module="optuna")  # its notices of its own changes
    study = optuna.create_study(
        direction="maximize", pruner=optuna.pruners.ThresholdPruner(lower=2.0)
    )
    trial = study.ask()
    cfg = twt.load_config("digits", [*TINY, "--train.epochs=3"])
    with report_to(trial, "accuracy") as rep:
        summary = twt.train_job(cfg, run_dir=tmp_path / "r", out=None, progress=False)
    assert rep.pruned_at == 0  # accuracy < 2.0 after the first epoch: stop there
    assert summary["epochs"] == 1
    assert summary["stopped"] == "pruned by the sweep at epoch 1"
    reported = study.trials[0].intermediate_values
    assert list(reported) == [0] and 0.0 <= reported[0] <= 1.0
    cfg = twt.load_config("digits", [*TINY, "--train.epochs=2"])
    summary = twt.train_job(cfg, run_dir=tmp_path / "after", out=None, progress=False)
    assert summary["epochs"] == 2  # outside report_to nothing reports or prunes


def test_a_trial_that_raises_fails_without_retry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import optuna

    url = f"sqlite:///{tmp_path}/s.db"
    monkeypatch.setenv("TENSORWEAVE_STORE", url)
    monkeypatch.setenv("TENSORWEAVE_STORE_BLOBS", str(tmp_path / "blobs"))
    spec = SweepSpec(
        "digits",
        ["data.valid_fraction=choice(1.5)"],  # passes the config check, fails in the data
        trials=2,
        overrides=TINY,
        store=url,
        runs_root=str(tmp_path / "runs"),
    )
    create_study(spec)
    assert run_worker(spec, "test") == 2
    study = _study(url, spec.study_name())
    assert [t.state for t in study.trials] == [optuna.trial.TrialState.FAIL] * 2
    assert tally(study) == (2, [], [])


def test_an_interrupted_trial_is_queued_again(tmp_path: Path) -> None:
    import optuna

    spec = SweepSpec("digits", ["optimizer.learning_rate=uniform(0.001,0.1)"], trials=2)
    spec.store = f"sqlite:///{tmp_path}/s.db"
    study = create_study(spec)
    dist = optuna.distributions.FloatDistribution(0.001, 0.1)
    for worker in ("w1@a:1", "w2@b:2"):
        study.add_trial(
            optuna.trial.create_trial(
                state=optuna.trial.TrialState.FAIL,
                params={"optimizer.learning_rate": 0.01},
                distributions={"optimizer.learning_rate": dist},
                user_attrs={"interrupted": True, "worker": worker},
            )
        )
    assert requeue_interrupted(spec, "w1@a:1") == [0]  # only this worker's trial
    counted, running, waiting = tally(_study(spec.store, spec.study_name()))
    assert counted == 2 and not running
    assert [t.params for t in waiting] == [{"optimizer.learning_rate": 0.01}]


def _study(url: str, name: str) -> Any:
    import optuna

    warnings.filterwarnings("ignore", module="optuna")  # its notices of its own changes
    return optuna.load_study(study_name=name, storage=url)


def _kill_a_worker_mid_trial(url: str, name: str, proc: subprocess.Popen[str]) -> tuple[int, str]:
    """Wait (on the study's own state, however slow the machine) until a worker runs a
    trial, SIGKILL that worker; returns the trial's number and the worker's label (w1/w2).

    Whichever worker shows a running trial first is killed, so the test does not depend on
    which worker starts first; the other one (running, or still starting) must then fail
    the stale trial and retry it."""
    import optuna

    storage = None
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if storage is None:
                storage = optuna.storages.RDBStorage(url)
            trials = optuna.load_study(study_name=name, storage=storage).get_trials(
                deepcopy=False, states=(optuna.trial.TrialState.RUNNING,)
            )
        except Exception:  # the study is not created yet
            trials = []
        for t in trials:
            worker = str(t.user_attrs.get("worker", ""))  # "w1@host:pid", set as it starts
            if worker.startswith("w") and "@" in worker:
                os.kill(int(worker.rsplit(":", 1)[1]), signal.SIGKILL)
                return t.number, worker.split("@", 1)[0]
        time.sleep(0.5)
    raise AssertionError(f"no worker ran a trial: {proc.communicate()}")


@pytest.mark.slow
def test_two_workers_one_killed_mid_trial(store_url: str, tmp_path: Path) -> None:
    """2 worker processes; the first worker seen running a trial is SIGKILLed: that trial is
    failed by heartbeat and retried with the same values, the study holds exactly 4 counted
    trials, and every finished trial is one finished store run with the trial's own values.

    Robust under load: it waits on the study's state (no sleep that assumes a speed), the
    heartbeat is 5 s (a live trial is stale only after 15 s without a beat) and the sweep
    gets 15 minutes."""
    import optuna

    from tensorweave_store.store import open_store

    name = "killed-worker"
    args = ["sweep", "digits", "--param", "optimizer.learning_rate=loguniform(1e-3,1e-1)"]
    args += ["--trials", "4", "--workers", "2", "--heartbeat", "5", "--study", name]
    args += ["--pruner", "none", "--store", store_url, *TINY]
    proc = tensorweave(args, store_env(store_url, tmp_path), tmp_path)
    try:
        killed, label = _kill_a_worker_mid_trial(store_url, name, proc)
        out, err = proc.communicate(timeout=900)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out + err
    assert f"note: {label} exited -9" in out

    study = _study(store_url, name)
    counted, running, waiting = tally(study)
    assert (counted, running, waiting) == (4, [], [])
    trials = {t.number: t for t in study.get_trials()}
    assert trials[killed].state == optuna.trial.TrialState.FAIL
    retries = [t for t in trials.values() if retry_class().retried_trial_number(t) == killed]
    assert len(retries) == 1
    assert retries[0].state == optuna.trial.TrialState.COMPLETE
    assert retries[0].params == trials[killed].params
    assert not retries[0].user_attrs["worker"].startswith(f"{label}@")  # the survivor ran it
    done = [t for t in trials.values() if t.state == optuna.trial.TrialState.COMPLETE]
    assert len(done) == 4
    assert len({t.user_attrs["run_dir"] for t in done}) == 4

    store = open_store(store_url, blobs=str(tmp_path / "blobs"), cached=False)
    try:
        for t in done:
            run = store.run(int(t.user_attrs["store_run"]))
            assert run.status == "finished"
            assert f"trial:{t.number}" in run.tags and f"sweep:{name}" in run.tags
            lr = run.config["optimizer"]["learning_rate"]
            assert lr == pytest.approx(t.params["optimizer.learning_rate"])
            assert run.figures["val_accuracy"] == pytest.approx(t.value, abs=1e-6)
        finished = [r for r in store.runs(tags=[f"sweep:{name}"]) if r.status == "finished"]
        assert sorted(r.id for r in finished) == sorted(t.user_attrs["store_run"] for t in done)
    finally:
        store.close()

    plot = tmp_path / "sweep.png"
    code = cli_main(["sweep", "show", name, "--store", store_url, "-o", str(plot)])
    assert code == 0
    assert plot.read_bytes()[:4] == b"\x89PNG"


def test_cross_validation_covers_every_example_once(tmp_path: Path) -> None:
    from tensorweave_store.sweeps.folds import cross_validate

    result = cross_validate(
        "digits",
        2,
        ["--train.epochs=1", "--data.limit=120", "--data.workers=0", "--dims.hidden=8"],
        run_dir=tmp_path / "cv",
        out=None,
    )
    assert len(result["per_fold"]) == 2
    for key in ("loss", "accuracy"):
        values = [f[key] for f in result["per_fold"]]
        assert result["mean"][key] == pytest.approx(sum(values) / 2)
        assert result["std"][key] == pytest.approx(abs(values[0] - values[1]) / 2**0.5)
    assert json.loads((tmp_path / "cv" / "cv.json").read_text())["folds"] == 2
    for k in range(2):
        data = json.loads((tmp_path / "cv" / f"fold-{k}" / "config.json").read_text())["data"]
        assert (data["@datasets"], data["fold"], data["folds"]) == ("cv_fold.v1", k, 2)
        assert data["data"]["@datasets"] == "digits.v1"


def test_cv_command_prints_mean_and_spread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["cv", "--folds", "2", "--run-dir", str(tmp_path / "cv"), "--train.epochs=1"]
    assert cli_main([*args, "--data.limit=120", "--data.workers=0", "--dims.hidden=8"]) == 0
    out = capsys.readouterr().out
    assert "fold 2/2: loss" in out and "2-fold cross-validation of digits" in out
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["folds"] == 2 and set(summary["mean"]) == {"loss", "accuracy"}
    assert f"accuracy {summary['mean']['accuracy']:.4f} ± {summary['std']['accuracy']:.4f}" in out
