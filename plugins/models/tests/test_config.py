"""Builders in configs, used like layers: ``{ "@models" = "ResNet18.v1", inputs = ["x"] }``
in a graph, in a job config made into a ``Model``, and trained by the real ``tensorweave
train`` command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from twmodels_helpers import count

import tensorweave as tw
import tensorweave.config as twc

#: ResNet18 at an eighth of its width on the digits, upsampled to 32x32: one epoch
RESNET_DIGITS = """
[run]
name = "digits-resnet18"

[data]
"@datasets" = "digits.v1"
image = true
limit = 160
seed = 0

[model]
inputs = ["x"]
targets = ["y"]
outputs = ["body"]
loss = "loss"
metrics = { accuracy = "accuracy" }

[model.nodes]
x = { input = [8, 8, 1] }
y = { input = [], dtype = "int64" }
big = { "@layers" = "UpSampling2D.v1", inputs = ["x"], size = 4 }
body = { "@models" = "ResNet18.v1", inputs = ["big"], classes = 10, width = 0.125 }
loss = { "@losses" = "sparse_categorical_cross_entropy.v1", inputs = ["y", "body"], from_logits = false }
accuracy = { "@metrics" = "sparse_accuracy.v1", inputs = ["y", "body"] }

[optimizer]
"@optimizers" = "Adam.v1"
learning_rate = 0.002

[train]
epochs = 1
batch_size = 64
"""


def test_a_models_node_builds_the_module_named_after_the_node():
    g = twc.resolve_graph(
        {
            "nodes": {
                "x": {"input": [32, 32, 3]},
                "body": {"@models": "ResNet18.v1", "inputs": ["x"], "classes": 10, "width": 0.125},
            },
            "outputs": "body",
        }
    )
    body = g["body"]
    assert isinstance(body, tw.Module) and body.name == "body" and body.shape == (None, 10)
    assert body.inputs == (g["x"],)
    assert count(body) == count(tw.models["ResNet18.v1"]((32, 32, 3), classes=10, width=0.125))


def test_a_models_nodes_options_are_checked_before_anything_is_built():
    errors = twc.validate(
        {
            "model": {
                "nodes": {
                    "x": {"input": [32, 32, 3]},
                    "body": {"@models": "ResNet18.v1", "inputs": ["x"], "clases": 10},
                    "net": {"@models": "ResNet81.v1", "inputs": ["x"]},
                }
            }
        }
    )
    text = "\n".join(f"{p}: {m}" for p, m in errors)
    assert (
        "model.nodes.body.clases: 'clases' is not a parameter of ResNet18.v1. Did you mean 'classes'?"
        in text
    )
    assert "model.nodes.net.@models: unknown models component 'ResNet81.v1'" in text


def test_a_job_config_with_a_models_node_makes_a_model_that_predicts():
    import tensorweave_train as twt

    model = twt.build_model(twc.loads(RESNET_DIGITS))
    probs = np.asarray(model.predict({"x": np.zeros((3, 8, 8, 1), "float32")}))  # one output
    assert probs.shape == (3, 10)
    np.testing.assert_allclose(probs.sum(-1), 1.0, rtol=1e-5)


@pytest.mark.slow  # a subprocess importing TensorFlow and compiling ResNet18's steps (~40 s)
def test_tensorweave_train_runs_a_config_with_a_models_node(tmp_path: Path):
    config = tmp_path / "resnet_digits.toml"
    config.write_text(RESNET_DIGITS)
    run = tmp_path / "run"
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    done = subprocess.run(
        [sys.executable, "-m", "tensorweave", "train", str(config), "--run-dir", str(run)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "body (Module)" in done.stdout and "177,778" in done.stdout  # ResNet18 at width 1/8
    summary = json.loads((run / "summary.json").read_text())
    assert [h["epoch"] for h in summary["history"]] == [1.0]
    assert list((run / "checkpoints").iterdir())
