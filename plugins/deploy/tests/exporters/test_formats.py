"""The onnx and litert exports of a trained digits CNN, run in their own runtimes
(onnxruntime, ai-edge-litert's interpreter) against ``predict`` on the validation split, and
the bad inputs of an export: each refused with one error, nothing written at the path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import tensorflow as tf
from sklearn.datasets import load_digits

import tensorweave as tw
import tensorweave_train as twt
from tensorweave.cli import main as cli_main

CNN = Path(__file__).parents[4] / "examples" / "cnn_digits" / "cnn_digits.toml"
TINY_CNN = [
    "--train.epochs=10",
    "--optimizer.learning_rate=0.01",
    "--model.nodes.conv1.n_units=8",
    "--model.nodes.conv2.n_units=8",
    "--model.nodes.conv3.n_units=16",
]


@pytest.fixture(scope="module")
def cnn(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One trained digits CNN run, its restored model and validation split."""
    where = tmp_path_factory.mktemp("cnn") / "run"
    assert cli_main(["train", str(CNN), *TINY_CNN, "--quiet", "--run-dir", str(where)]) == 0
    job = twt.Run(where).job()
    valid = job.split("valid")
    return {
        "run": where,
        "model": job.model,
        "valid": valid,
        "predicted": job.model.predict(valid["x"]),
    }


def _accuracy(scores: np.ndarray, y: np.ndarray) -> float:
    return float(np.mean(np.argmax(scores, -1) == y))


def _litert(path: Path, x: np.ndarray) -> np.ndarray:
    from ai_edge_litert.interpreter import Interpreter

    runner = Interpreter(model_path=str(path / "model.tflite")).get_signature_runner()
    return np.asarray(runner(x=x)["probs"])


def _raw(x: np.ndarray) -> np.ndarray:
    """The digits' processed images back to what the run's predictor takes: 64 pixels 0..16."""
    return (x.reshape(len(x), 64) * 16.0).astype("float32")


def _export(capsys: Any, run: Path, out: Path, *args: str) -> tuple[int, str]:
    code = cli_main(["export", str(run), "-o", str(out), *args])
    return code, capsys.readouterr().err


@pytest.mark.slow
def test_onnx_export_in_onnxruntime_equals_predict(cnn, tmp_path) -> None:
    import onnxruntime as ort

    out = tmp_path / "onnx"
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tensorweave",
            "export",
            str(cnn["run"]),
            "--format",
            "onnx",
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert sorted(p.name for p in out.iterdir()) == ["model.json", "model.onnx"]
    spec = json.loads((out / "model.json").read_text())
    assert spec["format"] == "onnx" and spec["written_by"] == "tensorweave export"
    # the run's preprocessing is inside the graph: it takes the 64 raw pixels 0..16
    assert spec["inputs"] == [{"name": "x", "shape": [None, 64], "dtype": "float32"}]
    assert [s["step"] for s in spec["preprocess"]["inside"]] == ["normalize.v1", "reshape.v1"]
    assert spec["preprocess"]["outside"] == []
    assert spec["outputs"] == [{"name": "probs", "shape": [None, 10], "dtype": "float32"}]
    assert spec["n_classes"] == 10 and spec["quantization"] == {"mode": None}
    assert {
        "path": "model.nodes.conv1",
        "kind": "layers",
        "name": "Conv2D.v1",
        "provider": "tensorweave-layers 0.1.0",
    } in spec["providers"]
    assert {
        "path": "data",
        "kind": "datasets",
        "name": "digits.v1",
        "provider": "tensorweave-data 0.1.0",
    } in spec["providers"]
    assert spec["versions"]["tensorflow"] == tf.__version__
    session = ort.InferenceSession(str(out / "model.onnx"), providers=["CPUExecutionProvider"])
    assert [i.name for i in session.get_inputs()] == [i["name"] for i in spec["inputs"]]
    assert [o.name for o in session.get_outputs()] == ["probs"]
    got = session.run(None, {"x": _raw(cnn["valid"]["x"])})[0]
    np.testing.assert_allclose(got, cnn["predicted"], atol=1e-4)
    raw = load_digits().data[:7].astype("float32")
    np.testing.assert_allclose(
        session.run(None, {"x": raw})[0],
        twt.Run(cnn["run"]).predict(raw, postprocess=False),
        atol=1e-4,
    )


@pytest.mark.slow
def test_litert_float32_and_float16_equal_predict(cnn, tmp_path) -> None:
    model, x = cnn["model"], cnn["valid"]["x"]
    model.export(tmp_path / "f32", format="litert")
    np.testing.assert_allclose(_litert(tmp_path / "f32", x), cnn["predicted"], atol=1e-4)
    model.export(tmp_path / "f16", format="litert", quantize="float16")
    np.testing.assert_allclose(_litert(tmp_path / "f16", x), cnn["predicted"], atol=1e-2)
    assert (tmp_path / "f16" / "model.tflite").stat().st_size < (
        tmp_path / "f32" / "model.tflite"
    ).stat().st_size


@pytest.mark.slow
def test_litert_int8_keeps_accuracy_within_one_point(cnn, capsys, tmp_path) -> None:
    code, err = _export(
        capsys,
        cnn["run"],
        tmp_path / "i8",
        "--format",
        "litert",
        "--quantize",
        "int8",
        "--calibration",
        "200",
    )
    assert code == 0, err
    y = cnn["valid"]["y"]
    before = _accuracy(cnn["predicted"], y)
    after = _accuracy(_litert(tmp_path / "i8", _raw(cnn["valid"]["x"])), y)
    assert before > 0.85, "the fixture's model must have learnt something"
    assert abs(after - before) <= 0.01
    measured = json.loads((tmp_path / "i8" / "model.json").read_text())["quantization"]
    assert measured["mode"] == "int8" and measured["calibration_examples"] == 200
    assert measured["validation"]["accuracy"] == pytest.approx(after)
    assert measured["validation"]["accuracy_float32"] == pytest.approx(before)


def test_bad_exports_are_refused_before_writing(cnn, capsys, tmp_path) -> None:
    run = cnn["run"]
    code, err = _export(capsys, run, tmp_path / "a", "--format", "onnx", "--quantize", "float16")
    assert code == 2 and "onnx format has no float16 quantization" in err and "litert (" in err
    code, err = _export(
        capsys,
        run,
        tmp_path / "a",
        "--format",
        "litert",
        "--quantize",
        "int8",
        "--calibration",
        "100000",
    )
    assert code == 2 and "--calibration 100000" in err and "(1438)" in err
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "mine.txt").write_text("keep")
    code, err = _export(capsys, run, tmp_path / "taken", "--format", "onnx")
    assert code == 2 and "exists" in err and "--overwrite" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]
    assert [p.name for p in (tmp_path / "taken").iterdir()] == ["mine.txt"]


def test_a_layer_the_format_cannot_express_is_named_before_writing(tmp_path) -> None:
    tw.reset_names()
    x = tw.Input(n_units=4, name="x")
    h = tw.layers["FC.v1"](x, n_units=4, name="h1")
    y = tw.Lambda(tf.math.digamma, h, name="gamma")
    model = twt.Model(inputs=x, outputs=y)
    for fmt in ("onnx", "litert"):
        with pytest.raises(tw.TensorweaveError) as caught:
            model.export(tmp_path / fmt, format=fmt)
        text = str(caught.value)
        assert f"cannot export to {fmt}" in text and "layer 'gamma'" in text
        assert "Digamma" in text and "from tensorweave" in text and "Nothing was written" in text
    assert list(tmp_path.iterdir()) == []


def test_a_missing_converter_names_the_pip_command(monkeypatch, tmp_path) -> None:
    tw.reset_names()
    x = tw.Input(n_units=2, name="x")
    model = twt.Model(inputs=x, outputs=tw.layers["FC.v1"](x, n_units=2))
    monkeypatch.setitem(sys.modules, "tf2onnx", None)
    with pytest.raises(tw.TensorweaveError, match=r"pip install 'tensorweave-deploy\[onnx\]'"):
        model.export(tmp_path / "m", format="onnx")
    monkeypatch.setitem(sys.modules, "ai_edge_litert.interpreter", None)
    with pytest.raises(tw.TensorweaveError, match=r"pip install 'tensorweave-deploy\[litert\]'"):
        model.export(tmp_path / "m", format="litert")
    assert list(tmp_path.iterdir()) == []


def test_steps_without_a_tensorflow_form_stay_outside_and_are_listed(tmp_path) -> None:
    import onnxruntime as ort

    from tensorweave_train.runs.export.writer import export_model
    from tensorweave_train.runs.processors import Processors

    tw.reset_names()
    x = tw.Input(n_units=3, name="x")
    model = twt.Model(inputs=x, outputs=tw.layers["FC.v1"](x, n_units=2, name="out"))
    steps = Processors(
        preprocess=[
            {"@processors": "scale.v1", "factor": 0.5, "offset": 1.0},
            {"@processors": "take.v1", "n": 3},
            {"@processors": "cast.v1", "dtype": "float32"},
        ]
    )
    where = export_model(model, tmp_path / "m", format="onnx", processors=steps)
    spec = json.loads((where / "model.json").read_text())
    assert spec["preprocess"]["inside"] == [
        {"step": "scale.v1", "params": {"factor": 0.5, "offset": 1.0}}
    ]
    outside = spec["preprocess"]["outside"]
    assert [(o["step"], o["why"]) for o in outside] == [
        ("take.v1", "it has no TensorFlow form"),
        ("cast.v1", "it follows a step that stays outside"),
    ]
    raw = np.arange(6, dtype="float32").reshape(2, 3)
    session = ort.InferenceSession(str(where / "model.onnx"), providers=["CPUExecutionProvider"])
    np.testing.assert_allclose(
        session.run(None, {"x": raw})[0], model.predict(raw * 0.5 + 1.0), atol=1e-5
    )
