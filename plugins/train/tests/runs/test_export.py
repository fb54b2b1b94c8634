"""SavedModel export served by TensorFlow alone, and the Predictor with registered steps."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf
from twtrain_helpers import Dense, regression_data, regression_model

import tensorweave as tw
import tensorweave_train as twt
from tensorweave_train import Predictor

SERVE = """
import sys, numpy as np, tensorflow as tf
loaded = tf.saved_model.load(sys.argv[1])
serving = loaded.signatures["serving_default"]
data = np.load(sys.argv[2])
out = {}
for n in (1, 5, 13):
    out[f"sig{n}"] = serving(x=tf.constant(data["x"][:n]))["output_0"].numpy()
    out[f"fn{n}"] = loaded.serve(tf.constant(data["x"][:n])).numpy()
np.savez(sys.argv[3], **out)
assert not any(m.startswith("tensorweave") for m in sys.modules), "tensorweave was imported"
print("ok")
"""


@pytest.mark.slow
def test_savedmodel_runs_with_tensorflow_alone(tmp_path):
    model = regression_model()
    data = regression_data(n=16)
    model.train(data, epochs=1, batch_size=8)
    model.export(tmp_path / "sm")
    assert json.loads((tmp_path / "sm" / "model.json").read_text())["format"] == "savedmodel"
    np.savez(tmp_path / "in.npz", x=data["x"])
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            SERVE,
            str(tmp_path / "sm" / "model"),
            str(tmp_path / "in.npz"),
            str(tmp_path / "out.npz"),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = np.load(tmp_path / "out.npz")
    expected = model.predict({"x": data["x"]})
    for n in (1, 5, 13):
        np.testing.assert_allclose(out[f"sig{n}"], expected[:n], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(out[f"fn{n}"], expected[:n], rtol=1e-5, atol=1e-6)


def test_predictor_save_load_rebuilds_steps_from_registry(tmp_path):
    tf.random.set_seed(0)
    x = tw.Input(n_units=3, name="pixels")
    logits = Dense(x, 4)
    model = twt.Model(inputs=x, outputs=logits)
    pred = Predictor(
        model,
        preprocess=[("scale.v1", {"factor": 1 / 255})],
        postprocess=["argmax.v1", ("labels.v1", {"names": ["a", "b", "c", "d"]})],
    )
    raw = np.random.default_rng(0).integers(0, 255, size=(6, 3)).astype("float32")
    expected = np.array(list("abcd"), dtype=object)[np.argmax(model.predict(raw / 255), -1)]
    np.testing.assert_array_equal(pred(raw), expected)
    pred.save(tmp_path / "p")
    spec = json.loads((tmp_path / "p" / "predictor.json").read_text())
    assert [s["name"] for s in spec["postprocess"]] == ["argmax.v1", "labels.v1"]
    assert not list((tmp_path / "p").rglob("*.pkl"))
    loaded = Predictor.load(tmp_path / "p")
    np.testing.assert_array_equal(loaded(raw), expected)
    np.testing.assert_array_equal(loaded(raw[:1]), expected[:1])


def test_predictor_steps_must_be_registered_and_json():
    x = tw.Input(n_units=1, name="x")
    model = twt.Model(inputs=x, outputs=x)
    with pytest.raises(tw.config.ConfigError, match="no_such_step"):
        Predictor(model, preprocess=[("no_such_step.v1", {})])
    with pytest.raises(TypeError, match="JSON"):
        Predictor(model, preprocess=[("scale.v1", {"factor": object()})])
    with tw.processors.scoped():
        tw.processors.register("twice.v1", lambda v: v * 2)
        assert Predictor(model, preprocess=["twice.v1"])(np.ones((2, 1), "float32")).tolist() == [
            [2.0],
            [2.0],
        ]


def test_a_mixed_precision_model_exports_a_float32_signature(tmp_path):
    model = regression_model(precision="mixed_bfloat16")
    data = regression_data(n=16)
    model.train(data, epochs=1, batch_size=8, verbose=0)
    model.export(tmp_path / "sm")
    loaded = tf.saved_model.load(str(tmp_path / "sm" / "model"))
    serving = loaded.signatures["serving_default"]
    assert serving.structured_input_signature[1]["x"].dtype == tf.float32
    out = serving(x=tf.constant(data["x"]))["output_0"]
    assert out.dtype == tf.float32
    graph_ops = {op.type for op in serving.graph.get_operations()}
    inner = {n.op for f in serving.graph.as_graph_def().library.function for n in f.node_def}
    assert "Cast" in graph_ops | inner  # the layers run in bfloat16 inside
    np.testing.assert_allclose(out.numpy(), model.predict({"x": data["x"]}), rtol=1e-5)


def test_a_predictor_refuses_nan_input_unless_allowed(tmp_path):
    from tensorweave_train.runs.processors import NonFiniteInputError, NonFiniteInputWarning

    x = tw.Input(n_units=3, name="pixels")
    pred = Predictor(twt.Model(inputs=x, outputs=Dense(x, 2)), postprocess=["argmax.v1"])
    raw = np.zeros((4, 3), "float32")
    raw[2, 1] = np.nan
    raw[3] = np.inf
    with pytest.raises(
        NonFiniteInputError, match=r"input 'pixels' holds 4 NaN/inf values in 2 rows"
    ):
        pred(raw)
    with pytest.warns(NonFiniteInputWarning, match="4 NaN/inf values") as caught:
        assert len(pred(raw, allow_nan=True)) == 4
    assert len(caught) == 1
    assert pred(np.zeros((2, 3), "float32")).shape == (2,)  # clean input: no word


def test_a_damaged_predictor_json_is_named(tmp_path):
    from tensorweave_data.reading import BadFileError

    x = tw.Input(n_units=1, name="x")
    Predictor(twt.Model(inputs=x, outputs=Dense(x, 1))).save(tmp_path / "p")
    spec = tmp_path / "p" / "predictor.json"
    good = spec.read_text()
    spec.write_text(good[:20])
    with pytest.raises(
        BadFileError, match=r"predictor\.json is damaged \(not valid JSON.*export the run again"
    ):
        Predictor.load(tmp_path / "p")
    spec.write_text(good.replace('"model": "model"', '"model": "../../elsewhere"'))
    with pytest.raises(BadFileError, match=r"'../../elsewhere' is not a folder name inside"):
        Predictor.load(tmp_path / "p")


def test_a_predictor_takes_one_row_of_scalars_as_a_batch_of_one(tmp_path):
    a, b = tw.Input(shape=(), name="a"), tw.Input(shape=(), name="b")
    live = Predictor(twt.Model(inputs=[a, b], outputs=a * 2.0 + b))
    live.save(tmp_path / "p")
    loaded = Predictor.load(tmp_path / "p")
    for predictor in (live, loaded):
        np.testing.assert_allclose(predictor({"a": 55.0, "b": -3.0}), [107.0])
        rows = {"a": np.array([1.0, 2.0], "float32"), "b": np.array([0.5, 0.0], "float32")}
        np.testing.assert_allclose(predictor(rows), [2.5, 4.0])
