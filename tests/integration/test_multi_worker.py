"""``tensorweave train`` on two real worker processes (``--train.strategy=multi_worker`` on
localhost ports) and on two logical CPU devices (``mirrored``), against one process with the
same global batch: exit codes, what the chief alone writes (run directory, ``log.csv``,
checkpoints, one store record listing the workers), equal weights on every worker, the same
loss curve; a worker SIGKILLed mid-epoch then started again with the same command; and a
worker sent SIGTERM mid-training, which stops at once while its peer gives up naming it."""

from __future__ import annotations

import csv
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytestmark = (
    pytest.mark.slow
)  # real processes, each imports TensorFlow: ~4-5 min in all on a loaded 2-core machine

# 240 training examples, 15 steps of 16 per epoch: seconds of training
JOB = ["--data.limit=300", "--train.epochs=3", "--train.batch_size=16", "--dims.hidden=8"]
STEPS_PER_EPOCH = 15
TENSORWEAVE = str(Path(sys.executable).with_name("tensorweave"))


def _free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def _start(cwd: Path, store: Path, *argv: str) -> subprocess.Popen[str]:
    """``tensorweave train JOB ARGV`` in ``cwd`` (its own, to see what it leaves there)."""
    cwd.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "PYTHONUNBUFFERED": "1",
        "TF_CPP_MIN_LOG_LEVEL": "3",
        "TENSORWEAVE_BLOCK": "tensorweave-conflict-demo",
        "TENSORWEAVE_STORE": f"sqlite:///{store}",
    }
    env.pop("TF_CONFIG", None)
    return subprocess.Popen(
        [TENSORWEAVE, "train", *JOB, "--quiet", *argv],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _workers(tmp: Path, ports: list[int], task: int) -> subprocess.Popen[str]:
    cluster = ",".join(f"127.0.0.1:{p}" for p in ports)
    return _start(
        tmp / f"worker{task}",
        tmp / "store.db",
        *("--train.strategy=multi_worker", "--workers", cluster, "--task", str(task)),
        *("--run-dir", str(tmp / "run")),
    )


def _finish(proc: subprocess.Popen[str], name: str) -> tuple[str, str]:
    try:
        out, err = proc.communicate(timeout=400)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, f"{name} exited {proc.returncode}: {err[-3000:]}"
    return out, err


def _losses(run: Path) -> list[float]:
    with (run / "log.csv").open() as f:
        return [float(row["loss"]) for row in csv.DictReader(f)]


def _checksum(out: str) -> str:
    return out.rsplit("weights sha256:", 1)[1].split()[0]


def _store_runs(store: Path) -> list[object]:
    import tensorweave_store as tws

    return tws.open_store(f"sqlite:///{store}", cached=False).runs()


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """One uninterrupted two-worker run, one process, and 2 mirrored CPU devices, at once."""
    tmp = tmp_path_factory.mktemp("workers")
    ports = _free_ports(2)
    procs = {
        "one": _start(tmp / "one", tmp / "one.db", "--run-dir", str(tmp / "one" / "run")),
        "mirrored": _start(
            tmp / "mirrored",
            tmp / "mirrored.db",
            *("--train.strategy=mirrored", '--train.devices=["/cpu:0","/cpu:1"]'),
            *("--run-dir", str(tmp / "mirrored" / "run")),
        ),
        "chief": _workers(tmp, ports, 0),
        "worker": _workers(tmp, ports, 1),
    }
    outs = {name: _finish(proc, name)[0] for name, proc in procs.items()}
    return {"tmp": tmp, "outs": outs}


def test_two_workers_train_as_one_process_with_the_same_global_batch(reference) -> None:
    tmp: Path = reference["tmp"]  # type: ignore[assignment]
    outs: dict[str, str] = reference["outs"]  # type: ignore[assignment]
    run = tmp / "run"
    steps = [int(p.name.rsplit("-", 1)[1]) for p in (run / "checkpoints").iterdir()]
    assert max(steps) == 3 * STEPS_PER_EPOCH  # the final checkpoint, by the chief
    assert (run / "summary.json").is_file() and (run / "config.json").is_file()
    assert (run / "tensorboard").is_dir()
    assert os.listdir(tmp / "worker1") == []  # the other worker wrote nothing
    assert not (tmp / "worker0").exists() or os.listdir(tmp / "worker0") == []
    assert _checksum(outs["chief"]) == _checksum(outs["worker"])  # the same weights
    summary = json.loads((run / "summary.json").read_text())
    assert summary["replicas"] == 2 and len(summary["workers"]) == 2
    assert "of every interface of each host, unauthenticated" in summary["network"]
    np.testing.assert_allclose(_losses(run), _losses(tmp / "one" / "run"), rtol=1e-5)
    (record,) = _store_runs(tmp / "store.db")  # one run, recorded by the chief
    assert record.status == "finished"  # type: ignore[attr-defined]
    assert record.summary["workers"] == summary["workers"]  # type: ignore[attr-defined]


def test_mirrored_on_two_cpu_devices_matches_one_device(reference) -> None:
    import tensorweave_train as twt

    tmp: Path = reference["tmp"]  # type: ignore[assignment]
    assert "strategy mirrored: 2 replicas" in reference["outs"]["mirrored"]  # type: ignore[index]
    one, mirrored = tmp / "one" / "run", tmp / "mirrored" / "run"
    np.testing.assert_allclose(_losses(mirrored), _losses(one), rtol=1e-5)
    for a, b in zip(twt.load_model(one).variables, twt.load_model(mirrored).variables):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-6)


def test_a_worker_killed_mid_epoch_and_restarted_ends_with_the_same_weights(
    reference, tmp_path: Path
) -> None:
    ports = _free_ports(2)
    chief, worker = _workers(tmp_path, ports, 0), _workers(tmp_path, ports, 1)
    first = tmp_path / "run" / "checkpoints" / f"ckpt-{STEPS_PER_EPOCH:010d}"
    deadline = time.monotonic() + 300
    while not first.exists():  # epoch 1 is checkpointed: the workers are in epoch 2
        assert chief.poll() is None and worker.poll() is None, "a worker ended early"
        assert time.monotonic() < deadline, "no checkpoint after epoch 1"
        time.sleep(0.01)
    worker.send_signal(signal.SIGKILL)
    worker.wait()
    restarted = _workers(tmp_path, ports, 1)  # the same command again
    out, err = _finish(chief, "chief")
    again, _ = _finish(restarted, "restarted worker")
    assert "lost worker:1" in err and "restarting this worker" in err  # the fault happened
    expected = json.loads((reference["tmp"] / "run" / "summary.json").read_text())  # type: ignore[operator]
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["weights_sha256"] == expected["weights_sha256"]  # as if never killed
    assert _checksum(again) == _checksum(out) == expected["weights_sha256"]
    with (tmp_path / "run" / "log.csv").open() as f:
        assert [row["epoch"] for row in csv.DictReader(f)] == ["1", "2", "3"]
    (record,) = _store_runs(tmp_path / "store.db")  # still one run
    assert record.status == "finished"  # type: ignore[attr-defined]


def test_parameter_servers_serve_a_chief_that_trains_as_one_process(
    reference, tmp_path: Path
) -> None:
    chief, worker, ps = (f"127.0.0.1:{p}" for p in _free_ports(3))
    cluster = ["--train.strategy=parameter_server", "--chief", chief, "--workers", worker]
    cluster += ["--ps", ps, "--train.epochs=1"]
    store = tmp_path / "store.db"
    servers = [_start(tmp_path / t, store, *cluster, "--task", t) for t in ("ps:0", "worker:0")]
    run = tmp_path / "chief" / "run"
    out, _ = _finish(
        _start(tmp_path / "chief", store, *cluster, "--task", "chief", "--run-dir", str(run)),
        "chief",
    )
    for proc, task in zip(servers, ("ps:0", "worker:0")):
        served, _ = _finish(proc, task)  # each stops once the chief is gone
        assert served.startswith(f"{task}: served the chief")
        assert os.listdir(tmp_path / task) == []
    assert "strategy parameter_server" in out
    one = _losses(reference["tmp"] / "one" / "run")  # type: ignore[operator]
    np.testing.assert_allclose(_losses(run), one[:1], rtol=1e-5)


def test_sigterm_stops_a_training_worker_and_its_peer_gives_up_naming_it(
    tmp_path: Path,
) -> None:
    """TensorFlow takes SIGTERM for its preemption notice (a training worker ignored it);
    tensorweave gives it back: the worker stops at once. Its peer restarts itself, waits
    ``--cluster-timeout`` for it, and exits 75 naming it."""
    ports = _free_ports(2)
    cluster = ",".join(f"127.0.0.1:{p}" for p in ports)

    def start(task: int) -> subprocess.Popen[str]:
        return _start(
            tmp_path / f"worker{task}",
            tmp_path / "store.db",
            *("--train.strategy=multi_worker", "--workers", cluster, "--task", str(task)),
            *("--run-dir", str(tmp_path / "run"), "--train.epochs=50", "--cluster-timeout", "15"),
        )

    chief, worker = start(0), start(1)
    try:
        first = tmp_path / "run" / "checkpoints" / f"ckpt-{STEPS_PER_EPOCH:010d}"
        deadline = time.monotonic() + 300
        while not first.exists():  # training
            assert chief.poll() is None and worker.poll() is None, "a worker ended early"
            assert time.monotonic() < deadline, "no checkpoint after epoch 1"
            time.sleep(0.05)
        worker.send_signal(signal.SIGTERM)
        sent = time.monotonic()
        worker.wait(timeout=60)
        assert time.monotonic() - sent < 5
        assert worker.returncode == -signal.SIGTERM  # a shell shows 143
        _out, err = chief.communicate(timeout=300)
    finally:
        for proc in (chief, worker):
            if proc.poll() is None:
                proc.kill()
    assert chief.returncode == 75, err[-3000:]
    assert "lost worker:1" in err and f"never reached worker 1 (127.0.0.1:{ports[1]})" in err
    assert err.count("accepts unauthenticated connections") == 1  # said once, not on restart
