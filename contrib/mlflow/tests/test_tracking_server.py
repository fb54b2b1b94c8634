"""Against a real MLflow tracking server: ``mlflow server`` on a SQLite backend with proxied
artifacts (uploaded over HTTP, as to a remote server), on a free localhost port.

One server for the module, and one test: under ``pytest -n 2`` every test of a module may
land on another worker, which would start a server of its own (the server is most of the
cost). Its phases, each a function below:

- the server killed in the middle of a ``tensorweave train --mlflow URL`` (a subprocess) for
  good: the training ends (exit 0) with one warning, then one saying how many values were not
  sent and where they are saved;
- a training that starts while the server is down and brings it back at step 4: nothing is
  lost (the whole metric history), one warning;
- ``tensorweave mlflow sync RUN`` then sends what the first outage left, and MLflow's client
  finds the run whole: its params, metric histories, tags and artifacts;
- MLflow's UI in a real browser shows the run's metric and ``tensorweave`` tags.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import warnings
from pathlib import Path

import pytest

TINY = ["--train.epochs=2", "--train.limit=200", "--quiet"]


class Server:
    """``mlflow server`` in a process group of its own: ``start``, ``stop``, ``url``."""

    def __init__(self, where: Path) -> None:
        self.where = where
        with socket.socket() as free:
            free.bind(("127.0.0.1", 0))
            self.port = free.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 240.0) -> None:
        command = [
            sys.executable,
            "-m",
            "mlflow",
            "server",
            "--backend-store-uri",
            f"sqlite:///{self.where / 'mlflow.db'}",
            "--artifacts-destination",
            str(self.where / "artifacts"),
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--workers",
            "1",
        ]
        log = open(self.where / "server.log", "ab")  # noqa: SIM115 (the process keeps it)
        env = {**os.environ, "MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false"}  # no job runner
        self.process = subprocess.Popen(
            command, stdout=log, stderr=log, cwd=self.where, env=env, start_new_session=True
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process.poll() is None, (self.where / "server.log").read_text()[-3000:]
            try:
                with urllib.request.urlopen(f"{self.url}/health", timeout=2) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                time.sleep(0.5)
        raise AssertionError(f"mlflow server did not answer /health within {timeout:.0f} s")

    def stop(self, *, crash: bool = False) -> None:
        """End the server and its uvicorn worker (``crash``: at once, with SIGKILL)."""
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGKILL if crash else signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        with socket.socket() as probe:  # nothing answers on the port any more
            assert probe.connect_ex(("127.0.0.1", self.port)) != 0


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    pytest.importorskip(
        "mlflow.server", reason="the tests start `mlflow server` (pip install mlflow)"
    )
    running = Server(tmp_path_factory.mktemp("mlflow-server"))
    running.start()
    yield running
    running.stop()


def tensorweave(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("MLFLOW_", "TENSORWEAVE_MLFLOW"))
    }
    env.update(TF_CPP_MIN_LOG_LEVEL="3", TENSORWEAVE_RUNS=str(cwd / "runs"))
    return subprocess.run(
        [sys.executable, "-m", "tensorweave", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=900,
    )


@pytest.mark.slow
def test_runs_reach_a_real_tracking_server_and_survive_its_outage(server, tmp_path):
    # two outages for one restart of the server (a start is most of the cost) and one
    # `tensorweave train` (a process importing TensorFlow is the rest): the server dies in the
    # middle of the training and stays down to its end; the next training starts while it is
    # down and brings it back; then the first run's values are synced, and the first run is
    # checked whole, with MLflow's client and in MLflow's UI
    run = _a_server_gone_for_good_leaves_what_was_not_sent_in_the_run(server, tmp_path)
    _a_server_back_before_the_end_loses_nothing(server)
    _sync_sends_what_the_first_outage_left(server, tmp_path, run)
    run_id = _the_cli_training_is_found_with_mlflows_client(server, tmp_path, run)
    _mlflows_ui_shows_the_run_in_a_browser(server, tmp_path, run_id)


def _the_cli_training_is_found_with_mlflows_client(
    server: Server, tmp_path: Path, run: Path
) -> str:
    from mlflow.tracking import MlflowClient

    record = json.loads((run / "mlflow.json").read_text())
    assert record["tracking_uri"] == server.url

    client = MlflowClient(server.url)
    experiment = client.get_experiment_by_name("tensorweave")
    [found] = client.search_runs(
        [experiment.experiment_id], f"tags.`tensorweave.run_dir` = '{run}'"
    )
    assert found.info.run_id == record["run_id"] and found.info.status == "FINISHED"
    assert found.info.run_name == "digits-mlp"  # the config's [run] name

    params = found.data.params
    assert params["train.epochs"] == "2" and params["train.limit"] == "200"
    assert params["model.nodes.h1:layers"] == "FC.v1" and params["data:datasets"] == "digits.v1"

    tags = found.data.tags
    assert tags["tensorweave.provider.tensorweave-layers"] == "0.1.0"
    assert tags["tensorweave.provider.tensorweave-train"] == "0.1.0"
    assert tags["tensorweave.kind"] == "train"

    summary = json.loads((run / "summary.json").read_text())
    for name in ("loss", "val_loss", "val_accuracy"):
        history = client.get_metric_history(found.info.run_id, name)
        assert [(m.step, m.value) for m in history] == [
            (epoch, pytest.approx(row[name], rel=1e-6))
            for epoch, row in enumerate(summary["history"], 1)
        ]
    steps = client.get_metric_history(found.info.run_id, "step_loss")
    assert [m.step for m in steps] == [10]  # every_n_steps=10 of 14 steps

    artifacts = {a.path for a in client.list_artifacts(found.info.run_id)}
    assert {"config.json", "summary.json", "log.csv", "curves.svg", "model"} <= artifacts
    assert "predictor.json" in {
        Path(a.path).name for a in client.list_artifacts(found.info.run_id, "model")
    }
    config = client.download_artifacts(found.info.run_id, "config.json", str(tmp_path))
    assert Path(config).read_bytes() == (run / "config.json").read_bytes()
    return found.info.run_id


def _mlflows_ui_shows_the_run_in_a_browser(server: Server, tmp_path: Path, run_id: str) -> None:
    from mlflow.tracking import MlflowClient

    from tensorweave.testing.browser import check_not_blank, open_browser, wait_for_text

    experiment = MlflowClient(server.url).get_run(run_id).info.experiment_id
    with open_browser() as browser:
        browser.get(f"{server.url}/#/experiments/{experiment}/runs/{run_id}")  # MLflow 3's route
        text = wait_for_text(browser, "tensorweave.provider.tensorweave-layers", timeout=120)
        assert "digits-mlp" in text and "val_loss" in text and "tensorweave.run_dir" in text
        check_not_blank(browser, tmp_path / "mlflow-run.png")


def _a_server_back_before_the_end_loses_nothing(server: Server) -> None:
    import numpy as np
    from mlflow.tracking import MlflowClient

    import tensorweave as tw
    import tensorweave_train as twt
    from tensorweave_mlflow import MLflowLogger, MLflowUnreachableWarning

    x, t = tw.Input(n_units=4, name="x"), tw.Input(n_units=1, name="t")
    y = tw.layers["Linear.v1"](x, n_units=1)
    model = twt.Model(
        inputs=x, outputs=y, targets=t, loss=tw.losses["mse.v1"](t, y), optimizer=twt.SGD(0.1)
    )
    data = {"x": np.random.default_rng(0).normal(size=(64, 4)).astype("float32")}
    data["t"] = data["x"].sum(axis=1, keepdims=True)

    losses: dict[int, float] = {}

    def outage(event: twt.Event, state: twt.TrainState) -> None:
        losses[state.step] = float(state.loss)
        if state.step == 4:
            server.start()  # back before the end (the logger's next send finds it)

    logger = MLflowLogger(tracking_uri=server.url, run_name="outage-back", every_n_steps=1)
    logger.retry_seconds = 0.0
    assert server.process is not None and server.process.poll() is not None  # down
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.train(
            data,
            epochs=2,
            batch_size=8,
            verbose=0,
            callbacks=[twt.LambdaCallback(outage, twt.on_step()), logger],
        )
    unreachable = [w for w in caught if issubclass(w.category, MLflowUnreachableWarning)]
    assert len(unreachable) == 1 and "Training goes on" in str(unreachable[0].message)

    client = MlflowClient(server.url)
    run = client.get_run(logger.outbox.run_id)
    assert run.info.status == "FINISHED" and run.info.run_name == "outage-back"
    history = client.get_metric_history(run.info.run_id, "step_loss")
    assert sorted((m.step, m.value) for m in history) == [
        (step, pytest.approx(loss, rel=1e-6)) for step, loss in sorted(losses.items())
    ]
    assert len(losses) == 16
    assert [m.step for m in client.get_metric_history(run.info.run_id, "loss")] == [1, 2]


def _a_server_gone_for_good_leaves_what_was_not_sent_in_the_run(
    server: Server, tmp_path: Path
) -> Path:
    run = tmp_path / "run"
    argv = ["train", "digits", *TINY]
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("MLFLOW_", "TENSORWEAVE_MLFLOW"))
    }
    env.update(TF_CPP_MIN_LOG_LEVEL="3", TENSORWEAVE_RUNS=str(tmp_path / "runs"))
    training = subprocess.Popen(
        [sys.executable, "-m", "tensorweave", *argv, "--run-dir", str(run), "--mlflow", server.url],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    deadline = time.monotonic() + 600
    while not (run / "mlflow.json").exists():  # the MLflow run is made: the training started
        assert training.poll() is None and time.monotonic() < deadline, training.communicate()
        time.sleep(0.05)
    server.stop(crash=True)
    out, err = training.communicate(timeout=900)
    assert training.returncode == 0, out[-2000:] + err[-3000:]  # the training never dies of it
    assert err.count("did not take the run's values") == 1, err[-3000:]  # warned once
    pending = run / "mlflow-pending.json"
    assert f"were not sent to the MLflow tracking server {server.url}" in err
    assert f"they are saved in {pending}" in err and f"tensorweave mlflow sync {run}" in err
    saved = json.loads(pending.read_text())
    assert saved["status"] == "FINISHED" and saved["metrics"]
    assert saved["run_id"] == json.loads((run / "mlflow.json").read_text())["run_id"]
    assert (run / "mlflow-pending-files" / "curves.svg").is_file()  # made for the upload
    return run


def _sync_sends_what_the_first_outage_left(server: Server, tmp_path: Path, run: Path) -> None:
    pending = run / "mlflow-pending.json"
    run_id = json.loads((run / "mlflow.json").read_text())["run_id"]
    synced = tensorweave("mlflow", "sync", str(run), cwd=tmp_path)
    assert synced.returncode == 0, synced.stderr[-3000:]
    assert f"of {run} to {server.url}" in synced.stdout and f"run {run_id})" in synced.stdout
    assert not pending.exists() and not (run / "mlflow-pending-files").exists()
    assert "nothing to send" in tensorweave("mlflow", "sync", str(run), cwd=tmp_path).stdout
