"""The TensorFlow forms of the processors (``tensorweave_data.graph_forms``): the same
output as the Python forms, Keras's preprocessing layers' semantics, and the steps of a
file dataset run inside its tf.data graph (per-example random draws that a resume repeats,
training split only, recorded for ``predict``). The SIGKILL + resume test with random steps is
``test_image_folder.test_killed_mid_epoch_and_resumed_gives_the_same_weights``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave_data import graph_forms
from tensorweave_data.files.image_folder import image_folder
from tensorweave_data.graph_forms import StepsError, example_key, graph_form

from .test_image_folder import CONFIG, make_folder

RNG = np.random.default_rng(0)
IMAGE = RNG.uniform(0, 255, (7, 9, 3)).astype(np.float32)
MID = RNG.uniform(100, 150, (6, 5, 3)).astype(np.float32)  # no clipping for small changes

# (step, input): every processor with both forms, on a value it takes.
BOTH = [
    ({"@processors": "normalize.v1", "mean": 3.0, "std": 7.0}, RNG.normal(size=(4, 5))),
    ({"@processors": "scale.v1", "factor": 0.5, "offset": -1.0}, RNG.integers(0, 9, (3, 4))),
    ({"@processors": "cast.v1", "dtype": "int32"}, RNG.normal(size=(6,)) * 10),
    ({"@processors": "reshape.v1", "shape": [3, -1]}, np.arange(12.0)),
    ({"@processors": "reshape.v1", "shape": [2, 2], "batched": True}, np.zeros((3, 4))),
    ({"@processors": "one_hot.v1", "num_classes": 4}, np.array([3, 0, 2])),
    ({"@processors": "tokenize_chars.v1", "vocab": "abcé", "unknown": 9}, "cabézx"),
    ({"@processors": "resize.v1", "size": [4, 5]}, IMAGE),
    ({"@processors": "resize.v1", "size": [11, 13]}, IMAGE),
    ({"@processors": "resize.v1", "size": [4, 4], "interpolation": "nearest"}, IMAGE),
    ({"@processors": "resize.v1", "size": [5, 5], "crop_to_aspect_ratio": True}, IMAGE),
    ({"@processors": "resize.v1", "size": [3, 6], "crop_to_aspect_ratio": True}, IMAGE[None]),
]


def _params(step: dict) -> dict:
    return {k: v for k, v in step.items() if not k.startswith("@")}


@pytest.mark.parametrize(("step", "value"), BOTH, ids=lambda s: str(s)[:60])
def test_the_tensorflow_form_gives_what_the_python_form_gives(step: dict, value) -> None:
    """Same input, same output: exactly for the element-wise steps, within 1e-4 (float32
    rounding of the interpolation weights) for resizing."""
    python = np.asarray(tw.processors[step["@processors"]](value, **_params(step)))
    form = graph_form(step["@processors"], _params(step))
    assert not isinstance(form, str)
    graph = form(tf.constant(value), None).numpy()
    assert graph.shape == python.shape and graph.dtype == python.dtype
    np.testing.assert_allclose(graph, python, rtol=0, atol=1e-4)


def test_a_field_step_changes_only_its_field_in_both_forms() -> None:
    step = {"field": "x", "std": 2.0}
    sample = {"x": np.array([2.0, 4.0], np.float32), "y": np.int64(1)}
    graph = graph_form("normalize.v1", step)({k: tf.constant(v) for k, v in sample.items()}, None)
    python = tw.processors["normalize.v1"](sample, **step)
    assert graph["x"].numpy().tolist() == python["x"].tolist() == [1.0, 2.0]
    assert int(graph["y"]) == python["y"] == 1


def _keras(layer: str, **kw):
    import keras

    return getattr(keras.layers, layer)(**kw)


@pytest.mark.parametrize(
    "kw",
    [
        {"size": [4, 5]},
        {"size": [10, 12], "interpolation": "nearest"},
        {"size": [5, 5], "crop_to_aspect_ratio": True},
    ],
)
def test_resize_is_keras_resizing(kw: dict) -> None:
    """Keras's ``Resizing`` on the same image: both forms within 1e-4."""
    h, w = kw["size"]
    extra = {k: v for k, v in kw.items() if k != "size"}
    keras_out = np.asarray(_keras("Resizing", height=h, width=w, **extra)(IMAGE))
    python = tw.processors["resize.v1"](IMAGE, **kw)
    graph = graph_form("resize.v1", kw)(tf.constant(IMAGE), None).numpy()
    np.testing.assert_allclose(python, keras_out, atol=1e-4)
    np.testing.assert_allclose(graph, keras_out, atol=1e-4)


def _outputs(name: str, params: dict, image: np.ndarray, n: int = 12) -> list[np.ndarray]:
    """The TensorFlow form's outputs for ``n`` example keys and the Python form's for
    ``n`` seeds: the random draws differ, what each draw does must not."""
    form = graph_form(name, params)
    graph = [form(tf.constant(image), example_key(0, 0, 7, 0, i)).numpy() for i in range(n)]
    python = [tw.processors[name](image, seed=i, **params) for i in range(n)]
    return graph + python


@pytest.mark.parametrize("mode", ["horizontal", "vertical", "horizontal_and_vertical"])
def test_random_flip_is_keras_random_flip_with_the_same_decision(mode: str) -> None:
    """Each output is Keras's ``RandomFlip`` of the image with ``flips`` forced to what
    the output shows (flipped or not); over a dozen draws both happen, in both forms."""
    layer = _keras("RandomFlip", mode=mode)
    flipped = np.asarray(layer.transform_images(IMAGE, {"flips": np.ones((1, 1, 1), bool)}))
    kept = np.asarray(layer.transform_images(IMAGE, {"flips": np.zeros((1, 1, 1), bool)}))
    seen = set()
    for out in _outputs("random_flip.v1", {"mode": mode}, IMAGE):
        seen.add(bool(np.array_equal(out, flipped)))
        assert np.array_equal(out, flipped) or np.array_equal(out, kept)
    assert seen == {True, False}


def test_random_brightness_is_keras_random_brightness_with_the_same_delta() -> None:
    """Each output is the image plus one delta within ``factor * 255`` (Keras's
    ``RandomBrightness`` with that ``rgb_delta``, within 1e-4), clipped to value_range."""
    layer = _keras("RandomBrightness", factor=0.1, value_range=(0, 255))
    deltas = []
    for out in _outputs("random_brightness.v1", {"factor": 0.1}, MID):
        delta = float(out[0, 0, 0] - MID[0, 0, 0])
        deltas.append(delta)
        assert abs(delta) <= 25.5 + 1e-3
        ref = np.asarray(layer.transform_images(MID.copy(), {"rgb_delta": np.float32(delta)}))
        np.testing.assert_allclose(out, ref, atol=1e-3)
    assert len({round(d, 3) for d in deltas}) > 10
    both = _outputs("random_brightness.v1", {"factor": [0.9, 1.0]}, IMAGE, n=3)
    assert all(float(o.min()) >= 0 and float(o.max()) == 255.0 for o in both)  # clipped


def test_random_contrast_is_keras_random_contrast_with_the_same_factor() -> None:
    """Each output is ``(x - mean) * c + mean`` per channel with ``c`` in ``1 +- factor``:
    Keras's ``RandomContrast`` with that ``contrast_factor`` (within 1e-3)."""
    layer = _keras("RandomContrast", factor=0.3, value_range=(0, 255))
    mean = MID.mean(axis=(0, 1), keepdims=True)
    for out in _outputs("random_contrast.v1", {"factor": 0.3}, MID):
        c = float((out[0, 0, 0] - mean[0, 0, 0]) / (MID[0, 0, 0] - mean[0, 0, 0]))
        assert 0.7 - 1e-4 <= c <= 1.3 + 1e-4
        ref = np.asarray(layer.transform_images(MID.copy(), {"contrast_factor": np.float32(c)}))
        np.testing.assert_allclose(out, ref, atol=1e-3)


def test_random_crop_is_a_window_and_its_inference_form_is_keras_center_crop() -> None:
    """Training: a ``[4, 5]`` window of the image, somewhere (both forms); elsewhere, the
    recorded inference step is what Keras's ``RandomCrop`` documents for inference (the
    largest window of the target's aspect ratio, resized: ``Resizing`` with
    ``crop_to_aspect_ratio``, within 1e-4). Keras 3.15's layer returns the image unchanged
    there (another shape than in training), so its documentation is the reference."""
    tops = set()
    for out in _outputs("random_crop.v1", {"height": 4, "width": 5}, IMAGE):
        found = [
            (t, left)
            for t in range(4)
            for left in range(5)
            if np.array_equal(out, IMAGE[t : t + 4, left : left + 5])
        ]
        assert out.shape == (4, 5, 3) and found
        tops.add(found[0])
    assert len(tops) > 3
    step = graph_forms.inference_step({"@processors": "random_crop.v1", "height": 4, "width": 5})
    assert step is not None
    ours = tw.processors[step["@processors"]](IMAGE, **_params(step))
    keras_out = np.asarray(_keras("Resizing", height=4, width=5, crop_to_aspect_ratio=True)(IMAGE))
    np.testing.assert_allclose(ours, keras_out, atol=1e-4)


# -- on a stream ------------------------------------------------------------------------------
AUGMENT = [
    {"@processors": "resize.v1", "field": "x", "size": [6, 6]},
    {"@processors": "random_flip.v1", "field": "x", "seed": 3},
    {"@processors": "random_brightness.v1", "field": "x", "factor": 0.2},
    {"@processors": "normalize.v1", "field": "x", "std": 255.0},
]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_folder(tmp_path_factory.mktemp("graph_forms") / "imgs", per_class=4)


def _xs(stream, **kw) -> np.ndarray:
    return np.concatenate([b[0].numpy() for b in stream.batches(["x"], batch_size=3, **kw)])


def test_steps_run_in_the_graph_drawn_per_seed_epoch_and_example(folder: Path) -> None:
    """A resumed epoch (``skip``) gives the same examples as the uninterrupted one; another
    epoch or seed augments differently; the validation split is not augmented (resized and
    normalized only); the predictor records the deterministic steps only."""
    d = image_folder(folder, image_size=[8, 8], validation_split=0.25, steps=AUGMENT)
    assert d.train["x"].shape == (None, 6, 6, 3) and d.info["x_shape"] == [6, 6, 3]
    whole = _xs(d.train, shuffle=True, seed=1, epoch=0)
    np.testing.assert_array_equal(_xs(d.train, shuffle=True, seed=1, epoch=0, skip=1), whole[3:])
    np.testing.assert_array_equal(_xs(d.train, shuffle=True, seed=1, epoch=0), whole)
    assert not np.array_equal(np.sort(whole, None), np.sort(_xs(d.train, seed=1, epoch=1), None))
    assert not np.array_equal(whole, _xs(d.train, shuffle=True, seed=2, epoch=0))
    plain = image_folder(folder, image_size=[8, 8], validation_split=0.25)
    expected = tw.processors["resize.v1"](_xs(plain.valid), size=[6, 6]) / 255.0
    np.testing.assert_allclose(_xs(d.valid), expected, atol=1e-5)
    worker = d.train.sharded(2, 1)
    assert worker["x"].shape == (None, 6, 6, 3) and len(worker) + len(d.train.sharded(2, 0)) == 9
    assert len(d.train["x"][:4].stream) == 4 and d.train["x"][:4].shape == (None, 6, 6, 3)
    assert d.preprocess == [
        {"@processors": "resize.v1", "size": [6, 6]},
        {"@processors": "normalize.v1", "std": 255.0},
    ]


def test_a_step_without_a_tensorflow_form_on_streamed_data_is_named(folder: Path) -> None:
    steps = [AUGMENT[0], {"@processors": "window.v1", "field": "x", "size": 3}]
    with pytest.raises(StepsError, match=r"steps\[1\] \(window\.v1\).*Fix:.*resize\.v1"):
        image_folder(folder, image_size=[8, 8], steps=steps)
    with pytest.raises(tw.config.ConfigError, match="sizee"):
        image_folder(folder, steps=[{"@processors": "resize.v1", "sizee": [2, 2]}])


@pytest.mark.slow
def test_tensorweave_train_and_predict_with_resize_and_random_flip(
    folder: Path, tmp_path: Path
) -> None:
    """A real ``tensorweave train`` on ``image_folder.v1`` + ``resize`` + ``random_flip``
    (exit 0), whose ``processors.json`` records the resize but not the flip, and a real
    ``tensorweave predict`` on an image file of another size (resized as in training)."""
    steps = (
        'steps = [{ "@processors" = "resize.v1", field = "x", size = [6, 6] }, '
        '{ "@processors" = "random_flip.v1", field = "x", seed = 1 }]\n'
    )
    text = CONFIG.format(root=folder.as_posix()).replace("seed = 1\n", "seed = 1\n" + steps, 1)
    config = tmp_path / "augment.toml"
    config.write_text(text.replace("input = [8, 8, 3]", "input = [6, 6, 3]"))
    env = {
        **os.environ,
        "TF_CPP_MIN_LOG_LEVEL": "3",
        "TENSORWEAVE_BLOCK": "tensorweave-conflict-demo",
    }
    exe = str(Path(sys.executable).with_name("tensorweave"))
    run = tmp_path / "run"
    done = subprocess.run(
        [exe, "train", str(config), "--run-dir", str(run)],
        capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    saved = json.loads((run / "processors.json").read_text())
    assert [s["@processors"] for s in saved["preprocess"]] == ["resize.v1"]
    image = next(folder.rglob("*.png"))
    done = subprocess.run(
        [exe, "predict", str(run), "--input", str(image)],
        capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert any(name in done.stdout for name in ("cat", "dog", "eel")), done.stdout


def test_a_table_and_a_tfrecord_take_the_same_steps(tmp_path: Path) -> None:
    """``table.v1`` and ``tfrecord.v1`` run their steps in the graph too: a column scaled and
    cast, a label one-hot encoded; nothing is recorded for predict without an image field."""
    from tensorweave_data.files.table import table
    from tensorweave_data.files.tfrecord import tfrecord

    csv = tmp_path / "t.csv"
    csv.write_text("size,label\n" + "".join(f"{i},{i % 3}\n" for i in range(6)))
    steps = [
        {"@processors": "scale.v1", "field": "size", "factor": 0.5},
        {"@processors": "one_hot.v1", "field": "label", "num_classes": 3},
    ]
    d = table(csv, label="label", validation_split=0.0, steps=steps)
    got = next(iter(d.train.batches(["size", "label"], batch_size=6)))
    assert sorted(got[0].numpy().tolist()) == [0.0, 0.5, 1.0, 1.5, 2.0, 2.5]
    assert got[1].numpy().sum(axis=1).tolist() == [1.0] * 6 and d.preprocess == []
    path = tmp_path / "r.tfrecord"
    with tf.io.TFRecordWriter(str(path)) as w:
        for i in range(4):
            feature = {"v": tf.train.Feature(int64_list=tf.train.Int64List(value=[i]))}
            w.write(
                tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()
            )
    r = tfrecord(path, features={"v": "int64"}, validation_split=0.0, steps=[
        {"@processors": "cast.v1", "field": "v", "dtype": "float32"}])  # fmt: skip
    got = next(iter(r.train.batches(["v"], batch_size=4)))[0]
    assert got.dtype == tf.float32 and sorted(got.numpy().tolist()) == [0.0, 1.0, 2.0, 3.0]
