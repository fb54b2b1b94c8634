"""Adapting from a config (issue #36): ``tensorweave train`` adapts the model's
Normalization and StringLookup on the TRAINING split before training, records what it
adapted on, and a run killed and resumed keeps the same state and final weights. One run
trained in this process (module fixture) is shared by the tests."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tensorweave as tw
import tensorweave.config as twc

CITIES = ["oslo", "rome", "paris", "lima"]

CONFIG = """[data]
"@datasets" = "table.v1"
paths = "houses.csv"
label = "label"
validation_split = 0.25
seed = 0

[model]
inputs = ["a", "b", "city"]
targets = ["label"]
outputs = ["probs"]
loss = "loss"
metrics = { accuracy = "accuracy" }

[model.nodes]
a = { input = [] }
b = { input = [] }
city = { input = [], dtype = "string" }
label = { input = [], dtype = "int64" }
a1 = { "@layers" = "Reshape.v1", inputs = ["a"], shape = [1] }
b1 = { "@layers" = "Reshape.v1", inputs = ["b"], shape = [1] }
numbers = { "@layers" = "Concat.v1", inputs = ["a1", "b1"] }
norm = { "@layers" = "Normalization.v1", inputs = ["numbers"] }
city_id = { "@layers" = "StringLookup.v1", inputs = ["city"], max_tokens = 8 }
city_hot = { "@layers" = "CategoryEncoding.v1", inputs = ["city_id"], num_tokens = 8, output_mode = "one_hot" }
features = { "@layers" = "Concat.v1", inputs = ["norm", "city_hot"] }
hidden = { "@layers" = "FC.v1", inputs = ["features"], n_units = 8, activation = "relu" }
logits = { "@layers" = "Linear.v1", inputs = ["hidden"], n_units = 2 }
probs = { "@layers" = "Activation.v1", inputs = ["logits"], activation = "softmax" }
loss = { "@losses" = "sparse_categorical_cross_entropy.v1", inputs = ["label", "logits"], from_logits = true }
accuracy = { "@metrics" = "sparse_accuracy.v1", inputs = ["label", "logits"] }

[optimizer]
"@optimizers" = "Adam.v1"
learning_rate = 0.01

[train]
epochs = 3
batch_size = 4
seed = 0
"""


def write_csv(path: Path, rows: int) -> Path:
    """Two numeric columns, a string column (uneven counts), a label that needs both."""
    rng = np.random.default_rng(0)
    lines = ["a,b,city,label\n"]
    for _ in range(rows):
        a, b = rng.normal(50, 10), rng.normal(-3, 2)
        city = CITIES[rng.choice(4, p=[0.4, 0.3, 0.2, 0.1])]
        label = int((a - 50) / 10 + (city in ("rome", "lima")) > 0.5)
        lines.append(f"{a:.3f},{b:.3f},{city},{label}\n")
    path.write_text("".join(lines))
    return path


ENV = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "TENSORWEAVE_BLOCK": "tensorweave-conflict-demo"}
EXE = str(Path(sys.executable).with_name("tensorweave"))


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The config trained once in this process (3 epochs of 75 steps)."""
    import tensorweave_train as twt

    where = tmp_path_factory.mktemp("adapt")
    write_csv(where / "houses.csv", 400)
    (where / "t.toml").write_text(CONFIG)
    lines: list[str] = []
    cwd = os.getcwd()
    os.chdir(where)
    try:
        summary = twt.train_job(twc.load(where / "t.toml"), run_dir="run", out=lines.append)
    finally:
        os.chdir(cwd)
    return {"dir": where, "run": where / "run", "summary": summary, "out": lines}


def _train_split(where: Path) -> dict[str, np.ndarray]:
    d = tw.datasets["table.v1"](where / "houses.csv", label="label", validation_split=0.25, seed=0)
    batch = next(d.train.batches(["a", "b", "city"], batch_size=10_000))
    return {k: v.numpy() for k, v in zip(["a", "b", "city"], batch, strict=True)}


@pytest.mark.slow
def test_train_adapts_on_the_training_split_as_layer_adapt_does(trained: dict[str, Any]) -> None:
    import keras

    import tensorweave_train as twt

    train = _train_split(trained["dir"])
    numbers = np.stack([train["a"], train["b"]], axis=1)
    norm = tw.layers["Normalization.v1"](tw.Input(n_units=2))
    norm.adapt(numbers)
    look = tw.layers["StringLookup.v1"](tw.Input(shape=[], dtype="string"))
    look.adapt(train["city"])
    model = twt.load_model(trained["run"])
    by_name = {n.name: n for n in model.layers}
    np.testing.assert_allclose(by_name["norm"].mean.numpy(), norm.mean.numpy(), rtol=1e-6)
    np.testing.assert_allclose(by_name["norm"].variance.numpy(), norm.variance.numpy(), rtol=1e-6)
    assert by_name["city_id"].get_vocabulary() == look.get_vocabulary()
    # ... which is Keras's adapt on the same rows (and not on all of them: the valid split)
    k_norm = keras.layers.Normalization()
    k_norm.adapt(numbers)
    np.testing.assert_allclose(by_name["norm"].mean.numpy(), k_norm.mean.numpy()[0], rtol=1e-6)
    k_look = keras.layers.StringLookup()
    k_look.adapt(train["city"])
    assert by_name["city_id"].get_vocabulary() == k_look.get_vocabulary()
    assert len(train["a"]) < 400
    # the progress line, the record of what was adapted on, in adapted.json and the summary
    assert (
        trained["out"][0]
        == f"adapting norm, city_id on table.v1 train ({len(train['a'])} examples)"
    )
    record = json.loads((trained["run"] / "adapted.json").read_text())
    assert record == trained["summary"]["adapted"]
    assert (record["dataset"], record["split"], record["examples"]) == (
        "table.v1", "train", len(train["a"])
    )  # fmt: skip
    assert record["layers"]["norm"]["count"] == len(train["a"])
    assert record["layers"]["city_id"]["vocabulary_size"] == 5


def test_adapt_false_takes_the_given_state_and_adapts_nothing(tmp_path: Path) -> None:
    import tensorweave_train as twt

    write_csv(tmp_path / "houses.csv", 40)
    given = (
        CONFIG.replace(
            'inputs = ["numbers"] }',
            'inputs = ["numbers"], adapt = false, mean = [50.0, -3.0], variance = [100.0, 4.0] }',
        )
        .replace(
            "max_tokens = 8 }", 'max_tokens = 8, adapt = false, vocabulary = ["oslo", "rome"] }'
        )
        .replace('"houses.csv"', repr(str(tmp_path / "houses.csv")))
        .replace("epochs = 3", "epochs = 1")
    )
    path = tmp_path / "t.toml"
    path.write_text(given)
    cfg = twc.load(path)
    lines: list[str] = []
    summary = twt.train_job(cfg, run_dir=tmp_path / "run", out=lines.append)
    assert not any(line.startswith("adapting") for line in lines)
    assert "adapted" not in summary and not (tmp_path / "run" / "adapted.json").exists()
    model = twt.load_model(tmp_path / "run")
    norm = next(n for n in model.layers if n.name == "norm")
    assert norm.mean.numpy().tolist() == [50.0, -3.0]
    # adapt = false without the state is refused, naming the option to give
    bad = path.read_text().replace(", mean = [50.0, -3.0], variance = [100.0, 4.0]", "")
    path.write_text(bad)
    with pytest.raises(twc.ConfigError, match=r"adapt=false, but no mean=/variance="):
        twt.train_job(twc.load(path), run_dir=tmp_path / "run2", out=None)


@pytest.mark.slow
def test_killed_and_resumed_keeps_the_adapted_state_and_the_final_weights(
    trained: dict[str, Any],
) -> None:
    """SIGKILL ``tensorweave train`` after its first checkpoint, ``tensorweave resume``:
    the same adapted state (restored, not adapted again) and the same final weights as the
    uninterrupted run."""
    where = trained["dir"]
    victim = subprocess.Popen(
        [EXE, "train", "t.toml", "--run-dir", "killed"],
        cwd=where, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 240
    while not list((where / "killed").glob("checkpoints/ckpt-*")):
        assert victim.poll() is None, victim.communicate()[1][-2000:]
        assert time.monotonic() < deadline
        time.sleep(0.02)
    victim.send_signal(signal.SIGKILL)
    victim.wait(timeout=30)
    assert not (where / "killed" / "summary.json").exists()  # killed before the end
    resumed = subprocess.run(
        [EXE, "resume", "killed"], cwd=where, env=ENV, capture_output=True, text=True, timeout=300
    )
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert "adapting" not in resumed.stdout  # restored from the checkpoint
    summary = json.loads((where / "killed" / "summary.json").read_text())
    first = dict(trained["summary"]["adapted"], seconds=None)
    assert dict(summary["adapted"], seconds=None) == first
    assert summary["weights_sha256"] == trained["summary"]["weights_sha256"]


ROWS = [
    {"a": 62.5, "b": -1.0, "city": "rome"},
    {"a": 41.0, "b": -4.5, "city": "oslo"},
    {"a": 55.0, "b": -3.0, "city": "tokyo"},  # never seen: the OOV index
]


def _python_probabilities(run: Path) -> np.ndarray:
    import tensorweave_train as twt

    model = twt.load_model(run)
    columns = {
        "a": np.array([r["a"] for r in ROWS], "float32"),
        "b": np.array([r["b"] for r in ROWS], "float32"),
        "city": np.array([r["city"] for r in ROWS]),
    }
    lookup = next(n for n in model.layers if n.name == "city_id")
    assert tw.compile(lookup)(columns["city"]).numpy().tolist() == [2, 1, 0]  # tokyo: OOV 0
    return np.asarray(model.predict(columns))


@pytest.mark.slow
def test_predict_and_export_take_raw_rows_with_strings(
    trained: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``tensorweave predict RUN --input rows.json`` (raw values, a string column, an unseen
    string) gives ``model.predict``'s probabilities; so do a CSV of the rows, and the
    exported SavedModel and Predictor on the raw strings."""
    import tensorflow as tf

    import tensorweave_train as twt
    from tensorweave_train.commands.predict import cmd_predict

    expected = _python_probabilities(trained["run"])
    rows = tmp_path / "rows.json"
    rows.write_text(json.dumps(ROWS))
    done = subprocess.run(
        [EXE, "predict", str(trained["run"]), "--input", str(rows), "--probabilities"],
        env=ENV, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    np.testing.assert_allclose(json.loads(done.stdout), expected, atol=1e-6)
    # the same rows as a CSV file (typed as the run's table.v1 columns), in this process
    table = tmp_path / "rows.csv"
    table.write_text("a,b,city\n" + "".join(f"{r['a']},{r['b']},{r['city']}\n" for r in ROWS))
    assert cmd_predict([str(trained["run"]), "--input", str(table), "--probabilities"]) == 0
    np.testing.assert_allclose(json.loads(capsys.readouterr().out), expected, atol=1e-6)
    # exported: the SavedModel takes the raw strings, with the adapted state inside
    out = twt.export_run(trained["run"], tmp_path / "export")
    loaded = tf.saved_model.load(str(out / "model"))
    serve = loaded.signatures["serving_default"]
    got = serve(
        a=tf.constant([r["a"] for r in ROWS], tf.float32),
        b=tf.constant([r["b"] for r in ROWS], tf.float32),
        city=tf.constant([r["city"] for r in ROWS]),
    )
    np.testing.assert_allclose(next(iter(got.values())).numpy(), expected, atol=1e-6)
    predictor = twt.Predictor.load(out)
    columns = {k: [r[k] for r in ROWS] for k in ("a", "b", "city")}
    np.testing.assert_allclose(np.asarray(predictor(columns)), expected, atol=1e-6)


def test_predict_names_a_row_without_an_input(tmp_path: Path) -> None:
    from tensorweave_train.commands.predict import _row_columns
    from tensorweave_train.runs.processors import PredictInputError

    with pytest.raises(PredictInputError, match=r"row 1 of rows.json.*'city'.*Fix"):
        _row_columns([{"a": 1, "city": "x"}, {"a": 2}], "rows.json")
