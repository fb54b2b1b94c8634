"""``tensorweave predict`` on image files: a real ``tensorweave train`` on a folder of
generated PNG/JPEG files (``image_folder.v1``, a tiny CNN, one epoch), then real
``tensorweave predict`` processes on image files and folders: the same pixels as training,
class names per file, a bad image named with exit code 2; ``Run.predict`` and an exported
``Predictor`` take image paths too; ``on_error = "skip"`` counts what it skipped in the
epoch line and ``summary.json``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf

from tensorweave_data.files.image_folder import image_folder
from tensorweave_data.reading import BadFileError
from tensorweave_train.runs.processors import read_images

CLASSES = ("cat", "dog", "eel")
ENV = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "TENSORWEAVE_BLOCK": "tensorweave-conflict-demo"}
EXE = str(Path(sys.executable).with_name("tensorweave"))

CONFIG = """
[run]
name = "folder-cnn"

[data]
"@datasets" = "image_folder.v1"
directory = "{root}"
image_size = [8, 6]
crop_to_aspect_ratio = true
validation_split = 0.25
seed = 1

[model]
inputs = ["x"]
targets = ["y"]
outputs = ["probs"]
loss = "loss"

[model.nodes]
x = {{ input = [8, 6, 3] }}
y = {{ input = [], dtype = "int64" }}
scaled = {{ "@layers" = "BatchNorm.v1", inputs = ["x"] }}
conv = {{ "@layers" = "Conv2D.v1", inputs = ["scaled"], n_units = 4, kernel_size = 3, padding = "same", activation = "relu" }}
gap = {{ "@layers" = "GlobalAvgPool.v1", inputs = ["conv"] }}
logits = {{ "@layers" = "Linear.v1", inputs = ["gap"], n_units = 3 }}
probs = {{ "@layers" = "Activation.v1", inputs = ["logits"], activation = "softmax" }}
loss = {{ "@losses" = "sparse_categorical_cross_entropy.v1", inputs = ["y", "logits"], from_logits = true }}

[optimizer]
"@optimizers" = "Adam.v1"
learning_rate = 0.01

[train]
epochs = 1
batch_size = 4
seed = 0
"""


def make_folder(root: Path, per_class: int = 4) -> Path:
    """PNG and JPEG files of three classes, of varying sizes (so resizing matters)."""
    rng = np.random.default_rng(0)
    for c, name in enumerate(CLASSES):
        (root / name).mkdir(parents=True)
        for i in range(per_class):
            pixels = rng.integers(0, 256, (12 + i, 10 + 2 * (i % 2), 3), dtype=np.uint8)
            pixels[..., 0] = c * 80
            if i % 2:
                data = tf.io.encode_jpeg(pixels, quality=95).numpy()
                (root / name / f"img{i:02d}.jpg").write_bytes(data)
            else:
                (root / name / f"img{i:02d}.png").write_bytes(tf.io.encode_png(pixels).numpy())
    return root


def tw_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [EXE, *args], capture_output=True, text=True, env=ENV, timeout=300, cwd=cwd
    )


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run directory trained by a real ``tensorweave train`` on an image folder."""
    where = tmp_path_factory.mktemp("images")
    make_folder(where / "imgs")
    (where / "folder.toml").write_text(CONFIG.format(root=(where / "imgs").as_posix()))
    done = tw_cli("train", "folder.toml", "--run-dir", "run", cwd=where)
    assert done.returncode == 0, done.stderr[-3000:]
    return where


def test_the_run_records_how_it_decoded_its_images(trained: Path) -> None:
    saved = json.loads((trained / "run" / "processors.json").read_text())
    assert saved["info"]["image_decoding"] == {
        "image_size": [8, 6],
        "color_mode": "rgb",
        "crop_to_aspect_ratio": True,
        "interpolation": "bilinear",
    }
    assert saved["info"]["class_names"] == list(CLASSES)


@pytest.mark.parametrize(
    "settings",
    [
        {"image_size": [8, 6], "crop_to_aspect_ratio": True},
        {"image_size": [5, 9], "color_mode": "grayscale"},
        {"image_size": [7, 7], "color_mode": "grayscale", "crop_to_aspect_ratio": True},
    ],
)
def test_the_same_pixels_as_the_training_pipeline(tmp_path: Path, settings: dict) -> None:
    root = make_folder(tmp_path / "imgs", per_class=3)
    d = image_folder(root, validation_split=0.0, **settings)
    files = d.train.files()
    trained_x = np.concatenate([b[0].numpy() for b in d.train.batches(["x"], batch_size=4)])
    got_files, x = read_images(files, d.info["image_decoding"])
    assert [str(f) for f in got_files] == files
    assert x.dtype == np.float32 and x.shape == trained_x.shape
    np.testing.assert_array_equal(x, trained_x)  # exactly: the same decode and resize ops


def test_predict_image_files_and_a_folder(trained: Path) -> None:
    files = ["imgs/cat/img00.png", "imgs/dog/img01.jpg"]
    done = tw_cli("predict", "run", "--input", *files, "--probabilities", cwd=trained)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = json.loads(done.stdout)
    assert [r["file"] for r in rows] == files
    for row in rows:
        assert row["class"] in CLASSES and row["class"] == CLASSES[row["id"]]
        assert sorted(row["probabilities"]) == sorted(CLASSES)
        assert row["probability"] == max(row["probabilities"].values())
        assert abs(sum(row["probabilities"].values()) - 1.0) < 1e-4
    folder = tw_cli("predict", "run", "--input", "imgs/eel", "--top-k", "2", cwd=trained)
    assert folder.returncode == 0, folder.stderr[-3000:]
    rows = json.loads(folder.stdout)
    assert [r["file"] for r in rows] == [
        f"imgs/eel/img{i:02d}.{'jpg' if i % 2 else 'png'}" for i in range(4)
    ]
    assert all(len(r["top_k"]) == 2 and r["top_k"][0][0] == r["class"] for r in rows)
    # the answers are the model's on the training pipeline's tensors for the same files
    import tensorweave_train as twt

    run = twt.Run(trained / "run")
    d = image_folder(
        trained / "imgs", image_size=[8, 6], crop_to_aspect_ratio=True, validation_split=0.0
    )
    x = np.concatenate([b[0].numpy() for b in d.train.batches(["x"], batch_size=16)])
    eel = [i for i, f in enumerate(d.train.files()) if "/eel/" in f]
    want = run.predict(x[eel], postprocess=False)
    got = [r["top_k"][0][1] for r in rows]
    np.testing.assert_allclose(got, want.max(axis=-1), atol=1e-5)


def test_run_predict_and_an_exported_predictor_take_image_paths(
    trained: Path, tmp_path: Path
) -> None:
    import tensorweave_train as twt
    from tensorweave_train.runs.export.predictor import Predictor

    run = twt.Run(trained / "run")
    paths = [trained / "imgs" / "cat" / "img00.png", trained / "imgs" / "eel" / "img01.jpg"]
    names = run.predict(paths)
    assert len(names) == 2 and all(n in CLASSES for n in names)
    assert list(run.predict(str(trained / "imgs" / "cat"))) == list(
        run.predict(sorted((trained / "imgs" / "cat").iterdir()))
    )
    run.export(tmp_path / "exported")
    spec = json.loads((tmp_path / "exported" / "predictor.json").read_text())
    assert spec["images"]["image_size"] == [8, 6]
    served = Predictor.load(tmp_path / "exported")
    assert list(served(paths)) == list(names)


def test_a_bad_image_is_named_with_exit_code_2(trained: Path) -> None:
    good = (trained / "imgs" / "cat" / "img00.png").read_bytes()
    (trained / "truncated.png").write_bytes(good[: len(good) // 2])
    (trained / "fake.jpg").write_bytes(b"not a jpeg at all")
    (trained / "empty").mkdir()
    (trained / "empty" / "notes.txt").write_text("no images here")
    cases = {
        "truncated.png": r"truncated\.png cannot be decoded as an image",
        "fake.jpg": r"fake\.jpg is not a JPEG, PNG, BMP or GIF image",
        "empty": r"empty is a folder without images",
        "missing.png": r"missing\.png does not exist",
    }
    for name, message in cases.items():
        done = tw_cli("predict", "run", "--input", "imgs/cat/img00.png", name, cwd=trained)
        assert done.returncode == 2, (name, done.stdout, done.stderr[-2000:])
        assert "Traceback" not in done.stderr
        import re

        assert re.search(message, done.stderr), (name, done.stderr[-2000:])
        assert "Fix:" in done.stderr
    with pytest.raises(BadFileError, match=r"truncated\.png"):
        read_images([trained / "truncated.png"], {"image_size": [8, 6]})


def test_image_files_to_a_run_not_trained_on_images_are_refused(
    trained: Path, tmp_path: Path
) -> None:
    other = tmp_path / "run"
    other.mkdir()
    (other / "config.json").write_text("{}")
    (other / "processors.json").write_text('{"info": {}}')
    image = str(trained / "imgs" / "cat" / "img00.png")
    done = tw_cli("predict", str(other), "--input", image, cwd=tmp_path)
    assert done.returncode == 2, done.stderr[-2000:]
    assert "was not trained on image files" in done.stderr and "Fix:" in done.stderr


def test_skipped_images_are_counted_in_the_epoch_line_and_the_run_record(tmp_path: Path) -> None:
    root = make_folder(tmp_path / "imgs")
    (root / "dog" / "fake.png").write_bytes(b"this is not a png at all")  # found by the scan
    good = (root / "cat" / "img00.png").read_bytes()
    (root / "cat" / "img02.png").write_bytes(good[: len(good) // 2])  # fails to decode
    (tmp_path / "folder.toml").write_text(CONFIG.format(root=root.as_posix()))
    strict = tw_cli("train", "folder.toml", "--run-dir", "strict", cwd=tmp_path)
    assert strict.returncode != 0 and "fake.png" in strict.stderr
    done = tw_cli(
        "train", "folder.toml", "--run-dir", "run", "--data.on_error=skip",
        "--data.validation_split=0", "--train.epochs=2", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [line for line in done.stdout.splitlines() if line.startswith("Epoch ")]
    assert len(lines) == 2 and all(line.endswith(" - skipped: 2") for line in lines), lines
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["skipped"] == {"scan": 1, "train": 1}
    assert summary["train_examples"] == 12  # the files listed after the scan (fake.png out)


def test_an_ensemble_predicts_on_image_files(trained: Path) -> None:
    single = tw_cli("predict", "run", "--input", "imgs/dog", cwd=trained)
    both = tw_cli("predict", "run", "run", "--input", "imgs/dog", cwd=trained)
    assert single.returncode == 0 and both.returncode == 0, both.stderr[-2000:]
    want = [(r["file"], r["class"]) for r in json.loads(single.stdout)]
    assert [(r["file"], r["class"]) for r in json.loads(both.stdout)] == want
