"""``tensorweave serve --format onnx`` on an ONNX file: ONNX Runtime's answers with the steps
its ``model.json`` names around them (a hand-built graph: no converter needed)."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from tensorweave_deploy.serving.errors import ServeError
from tensorweave_deploy.serving.source import load_served, resolve_source

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

W = (np.arange(12, dtype="float32").reshape(4, 3) % 5) - 2


def _onnx_model(folder: Path) -> Path:
    """``scores = x @ W`` with ``x: float32[N, 4]``, written as ``folder/model.onnx``."""
    from onnx import TensorProto, helper, numpy_helper

    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["scores"])],
        "scores",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
        [helper.make_tensor_value_info("scores", TensorProto.FLOAT, ["N", 3])],
        [numpy_helper.from_array(W, "w")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    folder.mkdir(parents=True, exist_ok=True)
    onnx.save(model, folder / "model.onnx")
    return folder / "model.onnx"


def test_an_onnx_export_is_served_with_the_steps_its_model_json_names(tmp_path: Path) -> None:
    folder = tmp_path / "export"
    _onnx_model(folder)
    (folder / "model.json").write_text(
        json.dumps(
            {
                "outside": [{"@processors": "normalize.v1", "std": 2.0}],
                "postprocess": [{"@processors": "argmax.v1"}],
            }
        )
    )
    source = resolve_source(str(folder), format="onnx", name="scores", workdir=tmp_path / "w")
    model = load_served(source)
    assert model.describe()["signature"] == {
        "inputs": [{"name": "x", "shape": [-1, 4], "dtype": "float32"}],
        "outputs": [{"name": "scores", "shape": [-1, 3], "dtype": "float32"}],
    }
    x = np.random.default_rng(0).integers(0, 16, size=(6, 4)).astype("float32")
    request = model.prepare({"instances": x.tolist()})
    answer = model.answer(request, model.backend.run(request.feed))
    assert answer == {"predictions": np.argmax((x / 2.0) @ W, axis=1).tolist()}


def test_a_folder_without_one_onnx_file_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "two"
    _onnx_model(folder)
    (folder / "copy.onnx").write_bytes((folder / "model.onnx").read_bytes())
    with pytest.raises(ServeError, match=r"holds 2 \.onnx files, not one"):
        resolve_source(str(folder), format="onnx", workdir=tmp_path / "w")


@pytest.mark.slow
def test_ctrl_c_answers_the_request_in_flight_then_exits_130(tmp_path: Path) -> None:
    folder = tmp_path / "scores"
    _onnx_model(folder)
    exe = Path(sys.executable).with_name("tensorweave")
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "tensorweave"]
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [*command, "serve", str(folder), "--format", "onnx", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        assert found, line
        body = json.dumps({"instances": [[1, 2, 3, 4]]}).encode()
        sock = socket.create_connection(("127.0.0.1", int(found[1])), timeout=30)
        sock.sendall(
            b"POST /v1/models/scores:predict HTTP/1.1\r\nHost: x\r\n"
            + f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body[:5]
        )
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        time.sleep(0.5)
        sock.sendall(body[5:])
        answer = b""
        while not answer.endswith(b"}"):
            chunk = sock.recv(65536)
            if not chunk:
                break
            answer += chunk
        sock.close()
        assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(
            b'{"predictions":[[5.0,-5.0,-5.0]]}'
        ), answer
        assert proc.wait(timeout=60) == 130
        assert "SIGINT: finishing the requests under way" in (
            proc.stderr.read() if proc.stderr else ""
        )
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
