"""Against a real MLflow tracking server: ``mlflow server`` on a SQLite backend with proxied
artifacts (uploaded over HTTP, as to a remote server), on a free localhost port.

One server for the module, and one test: under ``pytest -n 2`` every test of a module may
land on another worker, which would start a server of its own (the server is most of the
cost). Its phases, each a function below:

- a ``tensorweave train --mlflow URL`` run (a subprocess): MLflow's client finds the run, its
  params, metric histories, tags and artifacts;
- MLflow's UI in a real browser shows the run's metric and ``tensorweave`` tags;
- the server stopped mid-training and back before the end: nothing lost, one warning;
- the server stopped mid-training for good: the training ends (exit 0), the values are saved
  in the run, and ``tensorweave mlflow sync RUN`` sends them once the server is back.
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
        self.process = subprocess.Popen(
            command, stdout=log, stderr=log, cwd=self.where, start_new_session=True
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

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)  # the server and its uvicorn worker
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
    run_id = _a_cli_training_is_found_with_mlflows_client(server, tmp_path)
    assert run_id


def _a_cli_training_is_found_with_mlflows_client(server: Server, tmp_path: Path) -> str:
    from mlflow.tracking import MlflowClient

    run = tmp_path / "run"
    trained = tensorweave(
        "train", "digits", *TINY, "--run-dir", str(run), "--mlflow", server.url, cwd=tmp_path
    )
    assert trained.returncode == 0, trained.stdout[-2000:] + trained.stderr[-3000:]
    assert "MLflowUnreachableWarning" not in trained.stderr
    assert not (run / "mlflow-pending.json").exists()
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
