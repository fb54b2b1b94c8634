"""``image_folder.v1`` against Keras's ``image_dataset_from_directory`` on the same files,
its bad-input errors, and a real ``tensorweave train`` on it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave_data.files.errors import FileDataError, SkippedRecordsWarning
from tensorweave_data.files.image_folder import image_folder

CLASSES = ("cat", "dog", "eel")


def make_folder(root: Path, per_class: int = 7, size: tuple[int, int] = (12, 10)) -> Path:
    """PNG and JPEG files of three classes (sizes vary when ``size`` is not fixed)."""
    rng = np.random.default_rng(0)
    for c, name in enumerate(CLASSES):
        (root / name).mkdir(parents=True)
        for i in range(per_class):
            h, w = size[0] + (i % 3), size[1] + 2 * (i % 2)
            pixels = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
            pixels[..., 0] = c * 80  # the class is visible in the red channel
            if i % 2:
                data = tf.io.encode_jpeg(pixels, quality=95).numpy()
                (root / name / f"img{i:02d}.jpg").write_bytes(data)
            else:
                data = tf.io.encode_png(pixels).numpy()
                (root / name / f"img{i:02d}.png").write_bytes(data)
    return root


def _all(stream, fields=("x", "y")):
    out = [[] for _ in fields]
    for batch in stream.batches(list(fields), batch_size=5):
        for i, t in enumerate(batch):
            out[i].append(t.numpy())
    return [np.concatenate(o) for o in out]


def _keras(root: Path, subset: str | None, **kw):
    import keras

    split = {"validation_split": 0.25, "subset": subset, "seed": 42} if subset else {}
    ds = keras.utils.image_dataset_from_directory(
        str(root),
        image_size=(9, 11),
        shuffle=subset is not None,  # Keras splits shuffled paths; unshuffled: sorted
        batch_size=None,
        verbose=False,
        **split,
        **kw,
    )
    if subset is not None:
        return ds.class_names, list(ds.file_paths), None, None
    xs, ys = zip(*[(x.numpy(), y.numpy()) for x, y in ds], strict=True)
    return ds.class_names, list(ds.file_paths), np.stack(xs), np.stack(ys)


def test_same_split_as_keras_for_the_same_seed(tmp_path: Path) -> None:
    root = make_folder(tmp_path / "imgs")
    d = image_folder(root, image_size=[9, 11], validation_split=0.25, seed=42)
    for split, subset in (("train", "training"), ("valid", "validation")):
        names, paths, _, _ = _keras(root, subset)
        assert names == d.info["class_names"] == list(CLASSES)
        stream = getattr(d, split)
        assert len(stream) == len(paths)
        ours = stream.files()
        assert sorted(ours) == sorted(paths)
        labels = _all(stream, ["y"])[0]
        assert labels.tolist() == [CLASSES.index(Path(p).parent.name) for p in ours]


@pytest.mark.parametrize("crop", [False, True])
def test_same_files_labels_and_pixels_as_keras(tmp_path: Path, crop: bool) -> None:
    """Tolerance: the pixels equal Keras's to 1e-4 (the same tf decode and bilinear resize)."""
    root = make_folder(tmp_path / "imgs")
    d = image_folder(root, image_size=[9, 11], validation_split=0.0, crop_to_aspect_ratio=crop)
    _, paths, kx, ky = _keras(root, None, crop_to_aspect_ratio=crop)
    assert d.train.files() == paths
    x, y = _all(d.train)
    np.testing.assert_array_equal(y, ky)
    np.testing.assert_allclose(x, kx, atol=1e-4)
    assert x.dtype == np.float32 and x.shape == (21, 9, 11, 3)


def test_grayscale_categorical_and_no_labels(tmp_path: Path) -> None:
    root = make_folder(tmp_path / "imgs", per_class=4)
    d = image_folder(root, image_size=[5, 5], color_mode="grayscale", labels="categorical")
    x, y = _all(d.train)
    assert x.shape[1:] == (5, 5, 1) and y.shape[1:] == (3,) and set(y.sum(axis=1)) == {1.0}
    u = image_folder(root, image_size=[5, 5], labels="none", validation_split=0.0)
    assert sorted(u.train) == ["x"] and len(u.train) == 12 and "class_names" not in u.info
    r = image_folder(root, image_size=[5, 5], rename={"x": "image", "y": "label"})
    assert sorted(r.train) == ["image", "label"]


def test_each_epoch_a_seeded_order_and_limit(tmp_path: Path) -> None:
    d = image_folder(make_folder(tmp_path / "imgs"), image_size=[4, 4], validation_split=0.0)

    def ys(epoch: int, stream=d.train) -> list[int]:
        return np.concatenate(
            [b[0].numpy() for b in stream.batches(["y"], batch_size=4, shuffle=True, epoch=epoch)]
        ).tolist()

    assert ys(0) == ys(0) != ys(1)
    assert sorted(ys(0)) == sorted(ys(1))
    # resuming at batch 2 gives the rest of the same epoch
    rest = [
        b[0].numpy().tolist() for b in d.train.batches(["y"], batch_size=4, shuffle=True, skip=2)
    ]
    assert [y for part in rest for y in part] == ys(0)[8:]
    limited = d.train["y"][:5]
    assert len(limited) == 5 and limited.stream is d.train["x"][:5].stream


def test_keeps_the_image_size_or_names_the_odd_image(tmp_path: Path) -> None:
    same = make_folder(tmp_path / "same", per_class=1)
    d = image_folder(same, image_size=None, validation_split=0.0)
    assert d.info["x_shape"] == [12, 10, 3] and _all(d.train)[0].shape == (3, 12, 10, 3)
    mixed = make_folder(tmp_path / "mixed", per_class=3)
    d = image_folder(mixed, image_size=None, validation_split=0.0)
    with pytest.raises(FileDataError, match=r"img01\.jpg.*image_size"):
        _all(d.train)


def test_bad_folders_are_named_before_training(tmp_path: Path) -> None:
    with pytest.raises(FileDataError, match="does not exist"):
        image_folder(tmp_path / "nowhere")
    root = make_folder(tmp_path / "imgs", per_class=2)
    (root / "empty").mkdir()
    with pytest.raises(FileDataError, match=r"class folder .*empty.* has no images"):
        image_folder(root)
    texts = tmp_path / "texts"
    (texts / "a").mkdir(parents=True)
    (texts / "a" / "notes.txt").write_text("hello")
    with pytest.raises(FileDataError, match=r"class folder .*a.* has no images"):
        image_folder(texts)
    with pytest.raises(FileDataError, match=r"no images in .*only unsupported file types: \.txt"):
        image_folder(texts, labels=None)
    flat = tmp_path / "flat"
    flat.mkdir()
    with pytest.raises(FileDataError, match="no class subfolders"):
        image_folder(flat)
    with pytest.raises(tw.ArgumentError, match="color_mode"):
        image_folder(root, color_mode="rbg")
    (root / "empty").rmdir()
    (root / "cat" / "gone.png").symlink_to(tmp_path / "deleted.png")
    with pytest.raises(FileDataError, match=r"cannot read .*gone\.png.*No such file"):
        image_folder(root)


def test_corrupt_images_are_named_or_skipped_and_counted(tmp_path: Path) -> None:
    root = make_folder(tmp_path / "imgs", per_class=3)
    (root / "dog" / "fake.png").write_bytes(b"this is not a png at all")
    with pytest.raises(FileDataError, match=r"fake\.png.*not a JPEG, PNG"):
        image_folder(root)
    with pytest.warns(SkippedRecordsWarning, match=r"skipped 1 file"):
        d = image_folder(root, on_error="skip", validation_split=0.0, image_size=[4, 4])
    assert d.info["skipped_files"] == 1 and len(d.train) == 9
    # a truncated PNG passes the header check; its batch names it when read
    (root / "dog" / "fake.png").unlink()
    good = (root / "cat" / "img00.png").read_bytes()
    (root / "cat" / "img02.png").write_bytes(good[: len(good) // 2])
    d = image_folder(root, validation_split=0.0, image_size=[4, 4])
    with pytest.raises(FileDataError, match=r"cannot read the image .*img02\.png"):
        _all(d.train)
    d = image_folder(root, validation_split=0.0, image_size=[4, 4], on_error="skip")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        x, _ = _all(d.train)
    assert len(x) == 8 and d.train.skipped == 1
    assert any(issubclass(w.category, SkippedRecordsWarning) for w in seen)


def test_trains_through_the_model_without_numpy(tmp_path: Path) -> None:
    """``Model.train`` on the columns of a stream: batches come from tf.data."""
    from tensorweave_train.loop.data import as_batches

    d = image_folder(make_folder(tmp_path / "imgs"), image_size=[4, 4], validation_split=0.0)
    feeds = [tw.Input(shape=[4, 4, 3], name="x"), tw.Input(shape=[], name="y", dtype="int64")]
    b = as_batches(dict(d.train), feeds, batch_size=8, shuffle=True, seed=3)
    batches = list(b.epoch(0))
    assert len(b) == 3 == len(batches)
    assert all(isinstance(t, tf.Tensor) for batch in batches for t in batch)
    assert [len(t[1]) for t in batches] == [8, 8, 5]
    # a run resumed at batch 1 of epoch 2 sees that epoch's remaining batches
    whole = [t[1].numpy().tolist() for t in b.epoch(2)]
    assert [t[1].numpy().tolist() for t in b.epoch(2, skip=1)] == whole[1:]
    assert whole != [t[1].numpy().tolist() for t in batches]


CONFIG = """
[run]
name = "folder-cnn"

[data]
"@datasets" = "image_folder.v1"
directory = "{root}"
image_size = [8, 8]
validation_split = 0.25
seed = 1

[model]
inputs = ["x"]
targets = ["y"]
outputs = ["probs"]
loss = "loss"
metrics = {{ accuracy = "accuracy" }}

[model.nodes]
x = {{ input = [8, 8, 3] }}
y = {{ input = [], dtype = "int64" }}
scaled = {{ "@layers" = "BatchNorm.v1", inputs = ["x"] }}
conv = {{ "@layers" = "Conv2D.v1", inputs = ["scaled"], n_units = 4, kernel_size = 3, padding = "same", activation = "relu" }}
gap = {{ "@layers" = "GlobalAvgPool.v1", inputs = ["conv"] }}
logits = {{ "@layers" = "Linear.v1", inputs = ["gap"], n_units = 3 }}
probs = {{ "@layers" = "Activation.v1", inputs = ["logits"], activation = "softmax" }}
loss = {{ "@losses" = "sparse_categorical_cross_entropy.v1", inputs = ["y", "logits"], from_logits = true }}
accuracy = {{ "@metrics" = "sparse_accuracy.v1", inputs = ["y", "logits"] }}

[optimizer]
"@optimizers" = "Adam.v1"
learning_rate = 0.01

[train]
epochs = 1
batch_size = 4
seed = 0
"""


def test_tensorweave_train_on_an_image_folder(tmp_path: Path) -> None:
    root = make_folder(tmp_path / "imgs")
    config = tmp_path / "folder.toml"
    config.write_text(CONFIG.format(root=root.as_posix()))
    env = {
        **os.environ,
        "TF_CPP_MIN_LOG_LEVEL": "3",
        "TENSORWEAVE_BLOCK": "tensorweave-conflict-demo",
    }
    exe = Path(sys.executable).with_name("tensorweave")
    done = subprocess.run(
        [str(exe), "train", str(config), "--run-dir", str(tmp_path / "run")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["epochs"] == 1 and summary["train_examples"] == 16
    assert summary["steps"] == 4 and "accuracy" in summary["valid"]
    saved = json.loads((tmp_path / "run" / "processors.json").read_text())
    assert saved["info"]["class_names"] == list(CLASSES)


@pytest.mark.parametrize("where", ["memory", "file"])
def test_cache_keeps_the_decoded_images_after_the_first_epoch(tmp_path: Path, where: str) -> None:
    root = make_folder(tmp_path / "imgs", per_class=3)
    cache = "memory" if where == "memory" else str(tmp_path / "cache" / "images")
    if where == "file":
        (tmp_path / "cache").mkdir()
    d = image_folder(root, image_size=[4, 4], validation_split=0.0, cache=cache)

    def epoch(e: int) -> list[int]:
        batches = d.train.batches(["y"], batch_size=4, shuffle=True, epoch=e)
        return [int(y) for b in batches for y in b[0].numpy()]

    first = epoch(0)
    for f in root.rglob("*.*"):
        f.unlink()  # the files are gone: the next epochs read the cache
    second = epoch(1)
    assert sorted(first) == sorted(second) == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    assert epoch(1) == second


def killed_and_resumed(tmp_path: Path, source: Path, kind: str) -> dict:
    """Train ``files_resume_script.py`` on ``source`` uninterrupted, then again SIGKILLed
    after its mid-epoch checkpoint at step 4 (of 6 per epoch) and run again: the final
    weights must be bit-identical. Returns the input position the checkpoint saved."""
    import signal
    import time

    script = Path(__file__).with_name("files_resume_script.py")
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}

    def run(name: str, delay: float) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, str(script), str(tmp_path / name), str(tmp_path / f"{name}.npz"),
             str(source), str(delay), kind],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )  # fmt: skip

    whole = run("whole", 0.0)
    assert whole.wait(timeout=300) == 0, whole.stderr.read()[-2000:] if whole.stderr else ""
    killed = run("killed", 0.5)
    deadline = time.monotonic() + 240
    while (
        not list((tmp_path / "killed").glob("checkpoints/ckpt-*")) and time.monotonic() < deadline
    ):
        assert killed.poll() is None, killed.stderr.read()[-2000:] if killed.stderr else ""
        time.sleep(0.05)
    killed.send_signal(signal.SIGKILL)
    killed.wait(timeout=30)
    saved = list((tmp_path / "killed").glob("checkpoints/ckpt-*"))
    assert [p.name for p in saved] == ["ckpt-0000000004"]
    position = json.loads((saved[0] / "state.json").read_text())["input"]
    resumed = run("killed", 0.0)
    out, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, err[-2000:]
    assert "started-at 4" in out
    a, b = np.load(tmp_path / "whole.npz"), np.load(tmp_path / "killed.npz")
    assert len(a.files) == len(b.files) > 0
    for key in a.files:
        np.testing.assert_array_equal(a[key], b[key])
    return dict(position)


@pytest.mark.slow
def test_killed_mid_epoch_and_resumed_gives_the_same_weights(tmp_path: Path) -> None:
    """SIGKILL after the mid-epoch checkpoint at step 4 (of 6 per epoch), run again: the
    final weights are bit-identical to an uninterrupted run's; the checkpoint saved the
    input position, and the resume skips image paths, not decoded images. The run augments
    its images with random steps in the graph (``random_flip``, ``random_brightness``,
    drawn per example): the resumed epoch repeats their draws too."""
    folder = make_folder(tmp_path / "imgs", per_class=8)  # 24 images: 6 batches of 4
    position = killed_and_resumed(tmp_path, folder, "image_folder_augmented")
    assert position["epoch"] == 0 and position["batches"] == 4 and position["examples"] == 16
    assert position["skip"] == "records" and position["order"] is not None


def test_a_resume_decodes_none_of_the_images_it_skips(tmp_path: Path) -> None:
    """The input position is skipped over image paths: a corrupt image among the skipped
    examples is never opened, while reading the epoch from its start names it."""
    folder = make_folder(tmp_path / "imgs", per_class=4)  # 12 images: 3 batches of 4
    s = image_folder(folder, image_size=[8, 8], validation_split=0.0).train
    order = [Path(p) for p in s.files()]
    order[0].write_bytes(b"not an image")  # the first example of the unshuffled epoch
    with pytest.raises(FileDataError, match=order[0].name):
        list(s.batches(["x", "y"], batch_size=4))
    rest = list(s.batches(["x", "y"], batch_size=4, skip=1))
    assert [len(b[0]) for b in rest] == [4, 4]


def test_tensorweave_train_names_a_bad_folder_or_image_and_leaves_nothing(tmp_path: Path) -> None:
    """A missing folder (found by the scan) and a truncated image (found when its batch is
    read): the command fails naming it, and no run directory is left behind."""
    env = {
        **os.environ,
        "TF_CPP_MIN_LOG_LEVEL": "3",
        "TENSORWEAVE_BLOCK": "tensorweave-conflict-demo",
    }
    exe = Path(sys.executable).with_name("tensorweave")

    def train(root: Path) -> subprocess.CompletedProcess[str]:
        config = tmp_path / "folder.toml"
        config.write_text(CONFIG.format(root=root.as_posix()))
        return subprocess.run(
            [str(exe), "train", str(config), "--run-dir", str(tmp_path / "run")],
            capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path,
        )  # fmt: skip

    done = train(tmp_path / "no-such-folder")
    assert (
        done.returncode != 0 and "no-such-folder" in done.stderr and "does not exist" in done.stderr
    )
    assert not (tmp_path / "run").exists()
    root = make_folder(tmp_path / "imgs")
    png = (root / "dog" / "img00.png").read_bytes()
    (root / "dog" / "img02.png").write_bytes(png[: len(png) // 2])
    done = train(root)
    assert done.returncode != 0, done.stdout[-2000:]
    bad = str(root / "dog" / "img02.png")
    assert f"cannot read the image {bad!r}: Invalid PNG data" in done.stderr
    assert not (tmp_path / "run").exists()
