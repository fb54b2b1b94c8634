"""arrays.v1: named arrays from .npz/.npy files as a dataset, split as the built-ins split,
and a real `tensorweave train my.toml` run on generated files."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tensorweave as tw
from tensorweave_data.datasets import split_indices

datasets = tw.registry("datasets")


@pytest.fixture
def npz(tmp_path: Path) -> Path:
    path = tmp_path / "data.npz"
    x = np.random.default_rng(0).standard_normal((50, 4)).astype("float32")
    np.savez(path, x=x, y=np.arange(50) % 3)
    return path


def test_registered_under_datasets_kind() -> None:
    assert datasets.info("arrays.v1").distribution == "tensorweave-data"


def test_named_arrays_become_fields_split_as_the_builtins(npz: Path) -> None:
    d = datasets["arrays.v1"](str(npz), valid_fraction=0.2, seed=3)
    stored = np.load(npz)
    train_at, valid_at = split_indices(50, 0.2, 3)  # the digits/stdlib_chars split
    np.testing.assert_array_equal(d.train["x"], stored["x"][train_at])
    np.testing.assert_array_equal(d.valid["y"], stored["y"][valid_at])
    assert d.info["samples"] == 50 and d.info["fields"]["x"] == {"shape": [4], "dtype": "float32"}
    assert len(datasets["arrays.v1"](str(npz), limit=10).train["x"]) == 8


def test_npy_files_are_named_after_the_file_and_rename_maps_names(tmp_path: Path) -> None:
    np.save(tmp_path / "pixels.npy", np.zeros((6, 2, 2)))
    np.save(tmp_path / "labels.npy", np.ones(6, "int64"))
    files = [str(tmp_path / "pixels.npy"), str(tmp_path / "labels.npy")]
    d = datasets["arrays.v1"](files, rename={"pixels": "x", "labels": "y"}, valid_fraction=0.5)
    assert sorted(d.train) == ["x", "y"] and d.train["x"].shape == (3, 2, 2)


def test_separate_validation_files(npz: Path, tmp_path: Path) -> None:
    held = tmp_path / "held.npz"
    np.savez(held, x=np.zeros((5, 4), "float32"), y=np.zeros(5, "int64"))
    d = datasets["arrays.v1"](str(npz), valid=str(held))
    assert len(d.train["x"]) == 50 and len(d.valid["x"]) == 5
    with pytest.raises(tw.ArgumentError, match=r"valid= .* or valid_fraction="):
        datasets["arrays.v1"](str(npz), valid=str(held), valid_fraction=0.1)
    np.savez(held, x=np.zeros((5, 4), "float32"))
    with pytest.raises(tw.TensorweaveError, match=r"validation files hold \['x'\]"):
        datasets["arrays.v1"](str(npz), valid=str(held))


def test_files_that_cannot_be_data_are_refused_with_the_fix(tmp_path: Path) -> None:
    with pytest.raises(
        tw.TensorweaveError, match=r"missing\.npz does not exist.*working directory"
    ):
        datasets["arrays.v1"](str(tmp_path / "missing.npz"))
    (tmp_path / "data.csv").write_text("1,2\n")
    with pytest.raises(tw.TensorweaveError, match=r"not an \.npz or \.npy file.*np\.savez"):
        datasets["arrays.v1"](str(tmp_path / "data.csv"))
    np.savez(tmp_path / "uneven.npz", x=np.zeros((4, 2)), y=np.zeros(3))
    with pytest.raises(
        tw.TensorweaveError, match=r"different numbers of examples: \{'x': 4, 'y': 3\}"
    ):
        datasets["arrays.v1"](str(tmp_path / "uneven.npz"))
    np.save(tmp_path / "objects.npy", np.array([{"a": 1}, None], dtype=object))
    with pytest.raises(tw.TensorweaveError, match=r"holds Python objects .* never unpickled"):
        datasets["arrays.v1"](str(tmp_path / "objects.npy"))
    np.savez(tmp_path / "scalar.npz", x=np.float32(1.0))
    with pytest.raises(tw.TensorweaveError, match="single number"):
        datasets["arrays.v1"](str(tmp_path / "scalar.npz"))


CONFIG = """
[run]
name = "arrays-mlp"

[data]
"@datasets" = "arrays.v1"
path = "train.npz"
valid_fraction = 0.25

[model]
inputs = ["x"]
targets = ["y"]
outputs = ["logits"]
loss = "loss"
metrics = { accuracy = "accuracy" }

[model.nodes]
x = { input = [2, 3] }
y = { input = [], dtype = "int64" }
flat = { "@layers" = "Reshape.v1", inputs = ["x"], shape = [-1] }
logits = { "@layers" = "Linear.v1", inputs = ["flat"], n_units = 2 }
loss = { "@losses" = "sparse_categorical_cross_entropy.v1", inputs = ["y", "logits"], from_logits = true }
accuracy = { "@metrics" = "sparse_accuracy.v1", inputs = ["y", "logits"] }

[optimizer]
"@optimizers" = "Adam.v1"
learning_rate = 0.05

[train]
epochs = 3
batch_size = 16
"""


@pytest.mark.slow  # a real `tensorweave train` process (imports TensorFlow)
def test_tensorweave_train_runs_a_config_on_generated_files(tmp_path: Path) -> None:
    pytest.importorskip("tensorweave_train")
    x = np.random.default_rng(1).standard_normal((80, 2, 3)).astype("float32")
    np.savez(tmp_path / "train.npz", x=x, y=(x.sum(axis=(1, 2)) > 0).astype("int64"))
    (tmp_path / "my.toml").write_text(CONFIG)
    exe = Path(sys.executable).with_name("tensorweave")
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    done = subprocess.run(
        [str(exe), "train", "my.toml", "--run-dir", "run"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "Epoch 3/3" in done.stdout and "ShapeConventionWarning" not in done.stderr
    with open(tmp_path / "run" / "log.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 3 and "val_accuracy" in rows[0]
    assert float(rows[-1]["val_loss"]) < float(rows[0]["val_loss"])
