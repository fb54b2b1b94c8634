"""``tensorweave serve`` as a real process on a free localhost port, serving a tiny trained
digits run by its stage in the store (``digits@production``): 8 concurrent clients x 200 requests answered as ``predict`` answers, merged into
fewer backend calls; every bad request answered with its 4xx while the server stays up;
then SIGTERM with requests in flight: each gets its answer and the process exits 0.

The three tests share one server (module fixture) and run in this order; the last stops it.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("uvicorn")
pytest.importorskip("tensorweave_store")
httpx = pytest.importorskip("httpx")

pytestmark = pytest.mark.slow

TENSORWEAVE = Path(sys.executable).with_name("tensorweave")
TINY = ["--data.limit=200", "--train.epochs=1", "--train.batch_size=64", "--dims.hidden=8"]


@pytest.fixture(scope="module")
def digits(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, np.ndarray, list[int]]:
    """A tiny digits run registered as ``digits@production``, 100 raw examples, and what
    ``predict`` answers for them."""
    from sklearn.datasets import load_digits

    import tensorweave as tw
    import tensorweave_store as tws
    import tensorweave_train as twt

    run = tmp_path_factory.mktemp("digits") / "run"
    tw.plugins.block("tensorweave-conflict-demo")
    try:
        twt.train_job(
            twt.load_config(None, TINY), run_dir=run, source=twt.config_path(None), out=None
        )
    finally:
        tw.plugins.unblock("tensorweave-conflict-demo")
    tws.open_store().register_model(str(run), "digits", stage="production")
    x = load_digits().data[:100]
    return run, x, np.asarray(twt.Run(run).predict(x)).tolist()


class Server:
    """The ``tensorweave serve`` process and its address."""

    def __init__(self, proc: subprocess.Popen[str], port: int, stderr: Path) -> None:
        self.proc, self.port, self.stderr = proc, port, stderr
        self.url = f"http://127.0.0.1:{port}"

    def raw(self, data: bytes) -> socket.socket:
        """A connection that has sent ``data`` (a request, maybe partial)."""
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=30)
        sock.sendall(data)
        return sock


def _headers(length: int) -> bytes:
    return (
        "POST /v1/models/digits:predict HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
    ).encode()


def _answer(sock: socket.socket) -> tuple[int, Any]:
    """Read one HTTP answer (the server closes or sends Content-Length)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(re.search(rb"content-length: (\d+)", head, re.I)[1])  # type: ignore[index]
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return int(head.split()[1]), json.loads(body)


@pytest.fixture(scope="module")
def server(
    digits: tuple[Path, np.ndarray, list[int]], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    command = [str(TENSORWEAVE)] if TENSORWEAVE.exists() else [sys.executable, "-m", "tensorweave"]
    stderr = tmp_path_factory.mktemp("serve") / "stderr.txt"
    env = {
        **os.environ,
        "TF_CPP_MIN_LOG_LEVEL": "3",
        "PYTHONUNBUFFERED": "1",
        "TENSORWEAVE_BLOCK": "tensorweave-conflict-demo",
    }
    # the store the fixture registered in: the same runs root (conftest's environment)
    argv = ["serve", "digits@production", "--port", "0", "--max-instances", "500"]
    with stderr.open("w") as err:
        proc = subprocess.Popen(
            [*command, *argv], stdout=subprocess.PIPE, stderr=err, text=True, env=env
        )
    assert proc.stdout is not None
    line = proc.stdout.readline()  # one line once it accepts connections
    found = re.search(r"http://127\.0\.0\.1:(\d+)", line)
    assert found, f"no 'serving' line: {line!r}\n{stderr.read_text()}"
    threading.Thread(target=proc.stdout.read, daemon=True).start()  # drain
    yield Server(proc, int(found[1]), stderr)
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def test_8_concurrent_clients_get_predicts_answers_from_shared_backend_calls(
    server: Server, digits: tuple[Path, np.ndarray, list[int]]
) -> None:
    _, x, expected = digits

    def client(seed: int) -> list[str]:
        rng = np.random.default_rng(seed)
        problems = []
        with httpx.Client(base_url=server.url, timeout=30) as c:
            for _ in range(200):
                start, n = int(rng.integers(0, 97)), int(rng.integers(1, 4))
                if rng.random() < 0.5:
                    body = {"instances": x[start : start + n].tolist()}
                    key = "predictions"
                else:
                    body = {"inputs": {"x": x[start : start + n].tolist()}}
                    key = "outputs"
                r = c.post("/v1/models/digits:predict", json=body)
                if r.status_code != 200 or r.json() != {key: expected[start : start + n]}:
                    problems.append(
                        f"{r.status_code} {r.text[:200]} != {expected[start : start + n]}"
                    )
        return problems

    with ThreadPoolExecutor(8) as pool:
        problems = [p for ps in pool.map(client, range(8)) for p in ps]
    assert problems == [], problems[:5]
    status = httpx.get(f"{server.url}/v1/models/digits").json()
    batching = status["batching"]
    assert batching["requests"] == 1600 and batching["backend_calls"] < 1600, batching
    meta = status["metadata"]
    assert meta["signature"]["inputs"] == [{"name": "x", "shape": [-1, 64], "dtype": "float32"}]
    assert meta["preprocess"] == ["normalize.v1"] and meta["postprocess"] == ["argmax.v1"]
    assert (meta["model"], meta["version"], meta["format"]) == (
        "digits",
        "production",
        "savedmodel",
    )
    assert meta["source"] == "digits@production" and status["name"] == "digits"


def test_each_bad_request_is_answered_and_the_server_stays_up(
    server: Server, digits: tuple[Path, np.ndarray, list[int]]
) -> None:
    _, x, expected = digits
    row = x[0].tolist()
    predict = f"{server.url}/v1/models/digits:predict"
    cases = [
        (b'{"instances": [[0, 1,', 400, "not valid JSON"),
        (json.dumps({"inputs": {"pixels": [row]}}).encode(), 400, "missing input(s) ['x']"),
        (json.dumps({"instances": [row[:63]]}).encode(), 400, "shape [64] (float32)"),
        (json.dumps({"instances": [["0"] * 64]}).encode(), 400, "the request gives strings"),
        (json.dumps({"instances": [row] * 1000}).encode(), 413, "at most 500 (--max-instances)"),
    ]
    for body, status, message in cases:
        r = httpx.post(predict, content=body, timeout=30)
        assert r.status_code == status and message in r.json()["error"], r.text
    r = httpx.post(f"{server.url}/v1/models/mnist:predict", json={"instances": [row]})
    assert r.status_code == 404 and "serves 'digits'" in r.json()["error"]

    # a 100 MB body: refused from its Content-Length, after 64 KB of it were sent
    sock = server.raw(_headers(100 << 20) + b'{"instances": [' + b" " * (64 << 10))
    started = time.monotonic()
    status, answer = _answer(sock)
    sock.close()
    assert status == 413 and "larger than this server takes (16 MB" in answer["error"]
    assert time.monotonic() - started < 10

    # clients leaving mid-body and before their answer
    body = json.dumps({"instances": [row]}).encode()
    for sent in (_headers(len(body)) + body[:10], _headers(len(body)) + body):
        server.raw(sent).close()
    time.sleep(0.5)

    assert server.proc.poll() is None, server.stderr.read_text()
    assert httpx.get(f"{server.url}/healthz").json()["status"] == "ok"
    r = httpx.post(predict, json={"instances": [row]})
    assert r.json() == {"predictions": expected[:1]}
    assert "Traceback" not in server.stderr.read_text()


def test_sigterm_answers_the_requests_in_flight_then_exits_0(
    server: Server, digits: tuple[Path, np.ndarray, list[int]]
) -> None:
    _, x, expected = digits
    bodies = [json.dumps({"instances": x[k : k + 2].tolist()}).encode() for k in (0, 10, 20)]
    # three requests under way: their headers and half of their body sent
    socks = [server.raw(_headers(len(b)) + b[: len(b) // 2]) for b in bodies]
    time.sleep(0.5)
    server.proc.send_signal(signal.SIGTERM)
    time.sleep(1.0)
    with pytest.raises(OSError):  # it accepts no new connection
        socket.create_connection(("127.0.0.1", server.port), timeout=5).close()
    for sock, body in zip(socks, bodies):
        sock.sendall(body[len(body) // 2 :])
    answers = [_answer(s) for s in socks]
    for s in socks:
        s.close()
    assert answers == [(200, {"predictions": expected[k : k + 2]}) for k in (0, 10, 20)]
    assert server.proc.wait(timeout=60) == 0
    err = server.stderr.read_text()
    assert "SIGTERM: finishing the requests under way" in err and "Traceback" not in err, err
