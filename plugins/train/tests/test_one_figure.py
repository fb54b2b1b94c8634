"""One figure, one value, through the real ``tensorweave`` command: a config model with
Dropout and BatchNorm; the validation figures of the last epoch line, its log.csv row, the
History entry, the TensorBoard scalar, the final summary and ``tensorweave evaluate RUN``
are the same numbers, and predictions/evaluations of the run are deterministic."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf

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


def _tensorweave(*argv: str) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("tensorweave")
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "tensorweave_train.commands"]
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    return subprocess.run([*command, *argv], capture_output=True, text=True, env=env, timeout=300)


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
    config.write_text(CONFIG.replace("TB_DIR", str(tmp_path / "tb")))
    run = tmp_path / "run"
    trained = _tensorweave("train", str(config), "--run-dir", str(run))
    assert trained.returncode == 0, trained.stderr
    summary = json.loads((run / "summary.json").read_text())
    valid = summary["valid"]
    assert set(valid) == {"loss", "accuracy"}
    last = summary["history"][-1]  # the History entry of the last epoch
    assert {k: last[f"val_{k}"] for k in valid} == valid
    # the epoch line and the final summary line print the same figures
    lines = trained.stdout.splitlines()
    epoch_line = next(x for x in lines if x.startswith("epoch 2/2"))
    for k, v in valid.items():
        assert f"val_{k} {v:.4f}" in epoch_line
    summary_line = next(x for x in lines if x.strip().startswith("validation:"))
    assert summary_line.split("validation:")[1].split() == [
        part for k, v in valid.items() for part in (k, f"{v:.4f}")
    ]
    # the log.csv row
    rows = list(csv.DictReader((run / "log.csv").open()))
    assert len(rows) == 2
    assert {k: float(rows[-1][f"val_{k}"]) for k in valid} == valid
    # the TensorBoard scalars (float32) at the last epoch's step
    scalars = _scalars(tmp_path / "tb")
    for k, v in valid.items():
        assert scalars[f"epoch/val_{k}"][summary["steps"]] == float(np.float32(v))
    # tensorweave evaluate RUN, on the checkpoint of that epoch
    evaluated = _tensorweave("evaluate", str(run))
    assert evaluated.returncode == 0, evaluated.stderr
    assert json.loads(evaluated.stdout.strip().splitlines()[-1]) == valid
    # the run's model, built from the config and restored, predicts the same twice and
    # evaluates to the same figures in this process as in the evaluate command

    from tensorweave_train import restore

    job = restore._restored(run)
    raw = np.random.default_rng(0).random((5, 64)).astype("float32")
    first, second = job.model.predict({"x": raw}), job.model.predict({"x": raw})
    np.testing.assert_array_equal(first, second)
    assert job.model.evaluate(job.split("valid"), batch_size=24) == valid
