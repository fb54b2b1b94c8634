"""The cluster as a careless user and an attacker meet it, through the real ``tensorweave
train`` command in a subprocess: a bad ``TF_CONFIG`` is refused as ``--workers`` is (exit 2,
nothing written), a taken port is named, a worker whose peer never comes gives up after
``--cluster-timeout`` naming it (exit 75), and SIGTERM / Ctrl-C stop a waiting worker at
once (exit 143 / 130)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

TENSORWEAVE = str(Path(sys.executable).with_name("tensorweave"))
MULTI = ["--train.strategy=multi_worker", "--quiet"]


def _free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def _env(tf_config: str | None = None) -> dict[str, str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "TF_CPP_MIN_LOG_LEVEL": "3"}
    env.pop("TF_CONFIG", None)
    env.pop("TENSORWEAVE_CLUSTER_TIMEOUT", None)
    if tf_config is not None:
        env["TF_CONFIG"] = tf_config
    return env


def _train(cwd: Path, *argv: str, tf_config: str | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [TENSORWEAVE, "train", *MULTI, *argv],
        cwd=cwd,
        env=_env(tf_config),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _waiting(proc: subprocess.Popen[str]) -> tuple[float, list[str]]:
    """Read the worker's stderr until it says it waits; when that was, and the lines."""
    assert proc.stderr is not None
    lines: list[str] = []
    for line in proc.stderr:
        lines.append(line)
        if ": waiting for " in line:
            return time.monotonic(), lines
    raise AssertionError(f"the worker never said it waits: {''.join(lines)}")


@pytest.mark.parametrize(
    ("tf_config", "message"),
    [
        (
            {"cluster": {"worker": "127.0.0.1:1,127.0.0.1:2"}, "task": {"type": "worker"}},
            "cluster.worker is '127.0.0.1:1,127.0.0.1:2': a list of HOST:PORT is needed",
        ),
        (
            {"cluster": {"worker": ["127.0.0.1:9", "127.0.0.1:9"]}, "task": {"type": "worker"}},
            "the cluster lists 127.0.0.1:9 twice",
        ),
        ('{"cluster": ', "TF_CONFIG: not valid JSON"),
    ],
)
def test_a_bad_tf_config_exits_2_naming_it_and_the_fix(
    tmp_path: Path, tf_config: object, message: str
) -> None:
    text = tf_config if isinstance(tf_config, str) else json.dumps(tf_config)
    proc = _train(tmp_path, "--run-dir", str(tmp_path / "run"), tf_config=text)
    _out, err = proc.communicate(timeout=240)
    assert proc.returncode == 2, err
    assert "error: TF_CONFIG: " in err and message in err and "Fix: TF_CONFIG=" in err
    assert "Traceback" not in err
    assert list(tmp_path.iterdir()) == []  # no run directory, nothing in the working dir


def test_a_taken_port_is_named_with_its_number(tmp_path: Path) -> None:
    taken, peer = _free_ports(2)
    holder = socket.socket()
    holder.bind(("127.0.0.1", taken))
    holder.listen(1)
    try:
        workers = f"127.0.0.1:{taken},127.0.0.1:{peer}"
        proc = _train(tmp_path, "--workers", workers, "--task", "0", "--run-dir", "run")
        _out, err = proc.communicate(timeout=240)
    finally:
        holder.close()
    assert proc.returncode == 2, err
    assert f"port {taken} on 127.0.0.1 is in use by another process" in err
    assert f"(worker 0 (127.0.0.1:{taken}) of --workers" in err and "choose a free port" in err
    assert "Could not start gRPC server" not in err and "Traceback" not in err


def test_a_worker_whose_peer_never_comes_gives_up_naming_it(tmp_path: Path) -> None:
    me, missing = _free_ports(2)
    workers = f"127.0.0.1:{me},127.0.0.1:{missing}"
    proc = _train(
        tmp_path, "--workers", workers, "--task", "0", "--cluster-timeout", "5", "--run-dir", "r"
    )
    try:
        since, lines = _waiting(proc)  # after TensorFlow's import: the wait itself
        _out, err = proc.communicate(timeout=60)
        waited = time.monotonic() - since
    finally:
        if proc.poll() is None:
            proc.kill()
    err = "".join(lines) + err
    assert proc.returncode == 75, err
    assert waited < 15, waited
    assert "the cluster did not form within 5s (--cluster-timeout)" in err
    assert f"never reached worker 1 (127.0.0.1:{missing})" in err and "Fix:" in err
    # the exposure is said once, before the wait
    assert err.count(f"TensorFlow server on port {me} accepts unauthenticated") == 1
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(
    ("sig", "code", "name"), [(signal.SIGTERM, 143, "SIGTERM"), (signal.SIGINT, 130, "Ctrl-C")]
)
def test_a_waiting_worker_stops_at_once_on_a_signal(
    tmp_path: Path, sig: signal.Signals, code: int, name: str
) -> None:
    me, missing = _free_ports(2)
    tf_config = json.dumps(
        {
            "cluster": {"worker": [f"127.0.0.1:{me}", f"127.0.0.1:{missing}"]},
            "task": {"type": "worker", "index": 0},
        }
    )
    proc = _train(tmp_path, "--run-dir", "r", tf_config=tf_config)
    try:
        _waiting(proc)
        proc.send_signal(sig)
        sent = time.monotonic()
        _out, err = proc.communicate(timeout=30)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code, err
    assert took < 10, took  # the exception unwinds, then the interpreter exits
    assert f"{name}: stopped while waiting for the cluster to form" in err
    assert "Traceback" not in err
