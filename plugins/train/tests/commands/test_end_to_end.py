"""The real ``tensorweave`` command in subprocesses: the summary before training, TensorBoard
events, epochs numbered alike everywhere, one figure per value across every report,
``export``, ``predict --probabilities/--top-k``, ``draw``, bad configs."""

from __future__ import annotations

import csv
import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf
from twtrain_helpers import TENSORWEAVE, cli_env, tensorweave

import tensorweave_train as twt

pytestmark = pytest.mark.slow  # real subprocesses (each imports TensorFlow): ~2.5 min in all

TINY = ["--data.limit=200", "--train.epochs=2", "--train.batch_size=64", "--dims.hidden=8"]


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    where = tmp_path_factory.mktemp("dayone") / "run"
    done = tensorweave("train", *TINY, "--run-dir", str(where))
    assert done.returncode == 0, done.stderr
    return where, done.stdout


def test_train_prints_the_summary_before_the_first_epoch(trained) -> None:
    _, out = trained
    lines = out.splitlines()
    total = next(i for i, x in enumerate(lines) if x.startswith("Total params: "))
    first_epoch = next(i for i, x in enumerate(lines) if x.startswith("Epoch 1/2"))
    assert total < first_epoch
    # 64*8+8 + 8*8+8 + 8*10+10 parameters (h1, h2, logits at --dims.hidden=8)
    assert lines[total].startswith("Total params: 682 (trainable 682")
    assert any(x.startswith("accuracy (LossLayer) [metric]") for x in lines)


def _events(logdir: Path) -> dict[str, dict[int, float]]:
    found: dict[str, dict[int, float]] = {}
    files = list(logdir.rglob("events.out.tfevents.*"))
    assert files, f"no event file under {logdir}"
    for path in files:
        for event in tf.compat.v1.train.summary_iterator(str(path)):
            for value in event.summary.value:
                found.setdefault(value.tag, {})[event.step] = float(tf.make_ndarray(value.tensor))
    return found


def test_tensorboard_events_and_epoch_numbers_agree(trained) -> None:
    where, out = trained
    with (where / "log.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [r["epoch"] for r in rows] == ["1", "2"]
    summary = json.loads((where / "summary.json").read_text())
    assert [h["epoch"] for h in summary["history"]] == [1.0, 2.0]
    assert [x.split()[1] for x in out.splitlines() if x.startswith("Epoch ")] == ["1/2", "2/2"]
    events = _events(where / "tensorboard")
    steps = [int(r["step"]) for r in rows]
    assert events["epoch/epoch"] == {steps[0]: 1.0, steps[1]: 2.0}
    for r in rows:
        assert events["epoch/val_loss"][int(r["step"])] == pytest.approx(float(r["val_loss"]))


def test_tensorboard_can_be_switched_off(tmp_path: Path) -> None:
    done = tensorweave(
        "train",
        *TINY,
        "--train.epochs=1",
        "--run.tensorboard=false",
        "--quiet",
        "--run-dir",
        str(tmp_path / "r"),
    )
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "r" / "tensorboard").exists()


def test_predict_probabilities_and_top_k(trained, tmp_path: Path) -> None:
    from sklearn.datasets import load_digits

    where, _ = trained
    np.save(tmp_path / "x.npy", load_digits().data[:3])
    ids = json.loads(tensorweave("predict", str(where), "--input", str(tmp_path / "x.npy")).stdout)
    done = tensorweave("predict", str(where), "--input", str(tmp_path / "x.npy"), "--probabilities")
    assert done.returncode == 0, done.stderr
    probs = np.asarray(json.loads(done.stdout))
    assert probs.shape == (3, 10) and np.allclose(probs.sum(axis=1), 1.0, atol=1e-4)
    assert probs.argmax(axis=1).tolist() == ids
    done = tensorweave("predict", str(where), "--input", str(tmp_path / "x.npy"), "--top-k", "2")
    top = json.loads(done.stdout)
    assert [len(t) for t in top] == [2, 2, 2] and [t[0][0] for t in top] == ids
    assert all(t[0][1] >= t[1][1] for t in top)
    bad = tensorweave("predict", str(where), "--input", str(tmp_path / "x.npy"), "--top-k", "0")
    assert bad.returncode == 2 and "--top-k must be >= 1" in bad.stderr


def test_export_writes_a_savedmodel_with_its_processors(trained, tmp_path: Path) -> None:
    from sklearn.datasets import load_digits

    where, _ = trained
    out = tmp_path / "exported"
    done = tensorweave("export", str(where), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert (out / "model" / "saved_model.pb").is_file() and (out / "predictor.json").is_file()
    described = json.loads((out / "model.json").read_text())
    assert described["format"] == "savedmodel" and described["inputs"][0]["shape"] == [None, 64]
    assert any(
        p["name"] == "FC.v1" and p["provider"].startswith("tensorweave-layers ")
        for p in described["providers"]
    )
    raw = load_digits().data[:4]
    np.save(tmp_path / "x.npy", raw)
    via_cli = json.loads(
        tensorweave("predict", str(where), "--input", str(tmp_path / "x.npy")).stdout
    )
    assert np.asarray(twt.Predictor.load(out)(raw)).tolist() == via_cli
    again = tensorweave("export", str(where), "-o", str(out))
    assert again.returncode == 2 and "--overwrite" in again.stderr
    model = twt.load_run(where)
    assert isinstance(model, twt.Model) and model.summary(print_fn=None).count("[metric]") == 1


def test_draw_prints_the_summary_and_writes_a_png(tmp_path: Path) -> None:
    done = tensorweave("draw", "-o", str(tmp_path / "g.png"))
    assert done.returncode == 0, done.stderr
    assert "Total params: 26,122" in done.stdout and "[metric]" in done.stdout
    assert (tmp_path / "g.png").read_bytes()[:4] == b"\x89PNG"


CONFIG = """
[run]
name = "figures"

[data]
"@datasets" = "digits.v1"
valid_fraction = 0.2
seed = 0
limit = 400
workers = 0

[model]
inputs = ["x"]
targets = ["y"]
outputs = ["probs"]
loss = "loss"
metrics = { accuracy = "accuracy" }

[model.nodes]
x = { input = [64] }
y = { input = [], dtype = "int64" }
h = { "@layers" = "FC.v1", inputs = ["x"], n_units = 16, activation = "relu" }
bn = { "@layers" = "BatchNorm.v1", inputs = ["h"] }
drop = { "@layers" = "Dropout.v1", inputs = ["bn"], rate = 0.5 }
logits = { "@layers" = "Linear.v1", inputs = ["drop"], n_units = 10 }
probs = { "@layers" = "Activation.v1", inputs = ["logits"], activation = "softmax" }
loss = { "@losses" = "sparse_categorical_cross_entropy.v1", inputs = ["y", "logits"], from_logits = true }
accuracy = { "@metrics" = "sparse_accuracy.v1", inputs = ["y", "logits"] }

[optimizer]
"@optimizers" = "Adam.v1"
learning_rate = 0.01

[train]
epochs = 2
batch_size = 24
seed = 0

[[callbacks]]
"@callbacks" = "TensorBoard.v1"
log_dir = "TB_DIR"
write_graph = false
"""


def _scalars(logdir: Path) -> dict[str, dict[int, float]]:
    found: dict[str, dict[int, float]] = {}
    for path in logdir.rglob("events.out.tfevents.*"):
        for record in tf.data.TFRecordDataset(str(path)):
            event = tf.compat.v1.Event.FromString(record.numpy())
            for value in event.summary.value:
                number = tf.make_ndarray(value.tensor) if value.HasField("tensor") else None
                if number is not None:
                    found.setdefault(value.tag, {})[event.step] = float(number)
    return found


@pytest.mark.slow
def test_every_report_of_a_validation_figure_is_the_same_number(tmp_path):
    config = tmp_path / "figures.toml"
    config.write_text(CONFIG.replace("TB_DIR", "tb"))  # inside the run directory
    run = tmp_path / "run"
    trained = tensorweave("train", str(config), "--run-dir", str(run))
    assert trained.returncode == 0, trained.stderr
    summary = json.loads((run / "summary.json").read_text())
    valid = summary["valid"]
    assert set(valid) == {"loss", "accuracy"}
    last = summary["history"][-1]  # the History entry of the last epoch
    assert {k: last[f"val_{k}"] for k in valid} == valid
    # the epoch line and the final summary line print the same figures
    lines = trained.stdout.splitlines()
    epoch_line = next(x for x in lines if x.startswith("Epoch 2/2"))
    for k, v in valid.items():
        assert f"val_{k}: {v:.4f}" in epoch_line
    summary_line = next(x for x in lines if x.strip().startswith("validation:"))
    assert summary_line.split("validation:")[1].split() == [
        part for k, v in valid.items() for part in (k, f"{v:.4f}")
    ]
    # the log.csv row
    rows = list(csv.DictReader((run / "log.csv").open()))
    assert len(rows) == 2
    assert {k: float(rows[-1][f"val_{k}"]) for k in valid} == valid
    # the TensorBoard scalars (float32) at the last epoch's step
    scalars = _scalars(run / "tb")
    for k, v in valid.items():
        assert scalars[f"epoch/val_{k}"][summary["steps"]] == float(np.float32(v))
    # tensorweave evaluate RUN, on the checkpoint of that epoch
    evaluated = tensorweave("evaluate", str(run))
    assert evaluated.returncode == 0, evaluated.stderr
    assert json.loads(evaluated.stdout.strip().splitlines()[-1]) == valid
    # the run's model, built from the config and restored, predicts the same twice and
    # evaluates to the same figures in this process as in the evaluate command
    job = twt.Run.open(run).job()
    raw = np.random.default_rng(0).random((5, 64)).astype("float32")
    first, second = job.model.predict({"x": raw}), job.model.predict({"x": raw})
    np.testing.assert_array_equal(first, second)
    assert job.model.evaluate(job.split("valid"), batch_size=24) == valid


def test_bad_configs_through_the_real_command(tmp_path: Path) -> None:
    """The real ``tensorweave`` command (two processes at once): exit code, message,
    nothing left in the working directory."""
    digits = twt.config_path(None).read_text()
    (tmp_path / "job.toml").write_text(digits.replace("[train]", "[trian]"))
    cases = [
        (["train", "job.toml", "--train.batch_size=0"], 4, "train.batch_size: must be a pos"),
        (["evaluate", "no/such/run"], 2, "no/such/run does not exist"),
    ]
    procs = [
        subprocess.Popen(
            [TENSORWEAVE, *argv],
            cwd=tmp_path,
            env=cli_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for argv, _, _ in cases
    ]
    for (argv, code, message), proc in zip(cases, procs):
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == code, (argv, err[-1500:])
        assert message in err and "Traceback" not in err
        if argv[0] == "train":
            assert "trian: unknown section. Did you mean [train]?" in err  # all at once
    assert sorted(os.listdir(tmp_path)) == ["job.toml"]
