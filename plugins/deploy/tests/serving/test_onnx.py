"""``tensorweave serve --format onnx`` on an ONNX file: ONNX Runtime's answers with the steps
its ``model.json`` names around them (a hand-built graph: no converter needed)."""

from __future__ import annotations

import json
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
