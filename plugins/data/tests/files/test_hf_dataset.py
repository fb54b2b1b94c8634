"""``hf_dataset.v1`` against the real Hugging Face ``datasets`` library: the data is built and
saved with ``save_to_disk`` by ``datasets`` and read back by ``datasets.load_from_disk`` as
the reference; tensorweave reads the same folder with pyarrow only."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave_data.files.errors import FileDataError
from tensorweave_data.files.hf_dataset import hf_dataset

datasets = pytest.importorskip("datasets")
PIL = pytest.importorskip("PIL.Image")

N = 14
CLASSES = ["cat", "dog", "eel"]
SIZE = [4, 4]


def _png(rng: np.random.Generator, height: int, width: int) -> bytes:
    buffer = io.BytesIO()
    PIL.fromarray(rng.integers(0, 256, (height, width, 3), dtype=np.uint8)).save(buffer, "PNG")
    return buffer.getvalue()


def _features(**extra: Any) -> Any:
    return datasets.Features(
        {
            "id": datasets.Value("int32"),
            "score": datasets.Value("float64"),
            "word": datasets.Value("string"),
            "flag": datasets.Value("bool"),
            "label": datasets.ClassLabel(names=CLASSES),
            "vec": datasets.Sequence(datasets.Value("float32"), length=3),
            "image": datasets.Image(),
            **extra,
        }
    )


def _rows(n: int, start: int = 0, seed: int = 0) -> dict[str, list[Any]]:
    rng = np.random.default_rng(seed)
    return {
        "id": list(range(start, start + n)),
        "score": rng.normal(size=n).tolist(),
        "word": [f"w{i}" for i in range(start, start + n)],
        "flag": [bool(i % 2) for i in range(n)],
        "label": [int(v) for v in rng.integers(0, 3, n)],
        "vec": rng.normal(size=(n, 3)).astype(np.float32).tolist(),
        "image": [{"bytes": _png(rng, 5 + i % 3, 6 + i % 2), "path": None} for i in range(n)],
    }


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A Dataset saved in 2 shards, a DatasetDict (train, validation) and a Parquet file."""
    root = tmp_path_factory.mktemp("hf")
    data = datasets.Dataset.from_dict(_rows(N), features=_features())
    data.save_to_disk(str(root / "ds"), num_shards=2)
    both = datasets.DatasetDict(
        {
            "train": datasets.Dataset.from_dict(_rows(10, seed=1), features=_features()),
            "validation": datasets.Dataset.from_dict(_rows(4, 100, 2), features=_features()),
        }
    )
    both.save_to_disk(str(root / "dd"))
    (root / "pq").mkdir()
    data.to_parquet(str(root / "pq" / "part-0.parquet"))
    return {"ds": root / "ds", "dd": root / "dd", "pq": root / "pq", "root": root}


def _read(stream: Any, **kw: Any) -> dict[str, np.ndarray]:
    fields = sorted(stream)
    out: dict[str, list[Any]] = {f: [] for f in fields}
    for batch in stream.batches(fields, batch_size=4, **kw):
        for f, t in zip(fields, batch, strict=True):
            out[f] += list(t.numpy())
    return {f: np.asarray(v) for f, v in out.items()}


def _by_id(values: dict[str, np.ndarray]) -> dict[int, dict[str, Any]]:
    ids = values["id"].tolist()
    return {i: {f: v[k] for f, v in values.items()} for k, i in enumerate(ids)}


def _reference_image(image: Any) -> np.ndarray:
    pixels = tf.constant(np.asarray(image.convert("RGB")))
    return tf.image.resize(pixels, SIZE).numpy()


def test_every_example_label_and_class_name_as_datasets_loads_them(saved: dict[str, Path]) -> None:
    d = hf_dataset(saved["ds"], label="label", image_size=SIZE, validation_split=0.0)
    reference = datasets.load_from_disk(str(saved["ds"]))
    assert d.info["class_names"] == reference.features["label"].names == CLASSES
    assert d.info["label"] == ["label"] and d.info["form"] == "dataset" and d.info["files"] == 2
    assert d.info["types"] == {"id": "int64", "score": "float32", "word": "string",
                               "flag": "int64", "label": "int64", "vec": "float32",
                               "image": "float32"}  # fmt: skip
    assert len(d.train) == N and len(d.valid) == 0 and d.train["vec"].shape == (None, 3)
    got = _by_id(_read(d.train))
    assert sorted(got) == list(range(N))
    for row in reference:
        mine = got[row["id"]]
        assert mine["score"] == pytest.approx(row["score"], abs=1e-6)
        assert mine["word"].decode() == row["word"] and mine["flag"] == int(row["flag"])
        assert mine["label"] == row["label"]
        np.testing.assert_allclose(mine["vec"], row["vec"], rtol=1e-6)
        np.testing.assert_allclose(mine["image"], _reference_image(row["image"]), atol=1e-3)
    # the same data as a Parquet file (its saved features: the class names too) and a glob
    for path in (saved["pq"], str(saved["pq"] / "*.parquet")):
        p = hf_dataset(path, label="label", columns=["id", "vec"], validation_split=0.0)
        assert p.info["form"] == "files" and p.info["class_names"] == CLASSES
        again = _by_id(_read(p.train))
        assert sorted(again) == list(range(N))
        assert all(np.array_equal(again[i]["vec"], got[i]["vec"]) for i in range(N))


def test_dataset_dict_splits_and_a_seeded_validation_split(saved: dict[str, Path]) -> None:
    reference = datasets.load_from_disk(str(saved["dd"]))
    d = hf_dataset(saved["dd"], label="label", columns=["id"], rename={"label": "y"})
    assert d.info["valid_split"] == "validation" and d.info["label"] == ["y"]
    assert sorted(_read(d.train)["id"].tolist()) == reference["train"]["id"]
    assert sorted(_read(d.valid)["id"].tolist()) == reference["validation"]["id"]
    assert set(_read(d.valid)) == {"id", "y"}
    v = hf_dataset(saved["dd"], split="validation", columns=["id"], validation_split=0.0)
    assert len(v.train) == 4
    with pytest.raises(FileDataError, match=r"no split 'valdation'.*split = 'validation'"):
        hf_dataset(saved["dd"], split="valdation")
    # validation_split given: rows of the train split held out by a seeded hash
    a = hf_dataset(saved["ds"], columns=["id"], validation_split=0.4, seed=3)
    train, valid = _read(a.train)["id"].tolist(), _read(a.valid)["id"].tolist()
    assert sorted(train + valid) == list(range(N)) and valid and not set(train) & set(valid)
    b = hf_dataset(saved["ds"], columns=["id"], validation_split=0.4, seed=3)
    assert sorted(_read(b.valid)["id"].tolist()) == sorted(valid)


def test_resume_and_two_workers_follow_the_stream_contract(saved: dict[str, Path]) -> None:
    d = hf_dataset(saved["ds"], label="label", image_size=SIZE, validation_split=0.0,
                   shuffle_buffer=8)  # fmt: skip
    fields = ["id", "image", "label"]
    full = [tuple(t.numpy() for t in b)
            for b in d.train.batches(fields, batch_size=3, shuffle=True, seed=5, epoch=1)]  # fmt: skip
    resumed = [tuple(t.numpy() for t in b)
               for b in d.train.batches(fields, batch_size=3, shuffle=True, seed=5, epoch=1,
                                        skip=2)]  # fmt: skip
    assert len(resumed) == len(full) - 2
    for a, b in zip(full[2:], resumed, strict=True):
        assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    position = d.train.position(1, 2, batch_size=3, shuffle=True, seed=5)
    assert position["examples"] == 6 and position["skip"] == "records" and position["files"] == 2
    with pytest.raises(FileDataError, match="batch_size 3"):
        d.train.check_position(position, d.train.position(1, 2, batch_size=4, shuffle=True, seed=5))
    # two workers: file level (2 shards), and data level (one Parquet file)
    for path, level in ((saved["ds"], "file"), (saved["pq"], "data")):
        s = hf_dataset(path, columns=["id"], validation_split=0.0).train
        shares = [s.sharded(2, i) for i in range(2)]
        assert [w.sharding for w in shares] == [level, level]
        seen = [_read(w, shuffle=True, seed=1, epoch=2)["id"].tolist() for w in shares]
        assert sorted(seen[0] + seen[1]) == list(range(N)) and not set(seen[0]) & set(seen[1])


def test_bad_input_is_named_with_the_fix(
    saved: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.txt").write_text("hello")
    with pytest.raises(FileDataError, match=r"is not a saved dataset.*save_to_disk"):
        hf_dataset(tmp_path / "notes")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(
        FileDataError, match=r"'imdb'.*never downloaded.*load_dataset\('imdb'\)\.save_to_disk"
    ):
        hf_dataset("imdb")
    with pytest.raises(FileDataError, match=r"is a URL.*never downloads.*save_to_disk"):
        hf_dataset("https://huggingface.co/datasets/imdb")
    with pytest.raises(
        FileDataError, match=r"label 'lable' is not a column\. Did you mean 'label'"
    ):
        hf_dataset(saved["ds"], label="lable")
    # a feature with no tensor form: named with its type, and columns= leaves it out
    odd = datasets.Dataset.from_dict(
        {"id": [1, 2], "tokens": [[1, 2, 3], [4]]},
        features=datasets.Features({"id": datasets.Value("int64"),
                                    "tokens": datasets.Sequence(datasets.Value("int64"))}),
    )  # fmt: skip
    odd.save_to_disk(str(tmp_path / "odd"))
    with pytest.raises(
        FileDataError, match=r"column 'tokens'.*without a fixed length.*columns = \['id'\]"
    ):
        hf_dataset(tmp_path / "odd")
    assert len(hf_dataset(tmp_path / "odd", columns=["id"], validation_split=0.0).train) == 2
    # a missing value under missing = "error": file, row and column, before any training
    gap = datasets.Dataset.from_dict({"x": [1.0, None, 3.0]})
    gap.save_to_disk(str(tmp_path / "gap"))
    with pytest.raises(FileDataError, match=r"row 1: column 'x' is missing"):
        hf_dataset(tmp_path / "gap", missing="error")
    dropped = hf_dataset(tmp_path / "gap", missing="drop", validation_split=0.0)
    assert _read(dropped.train)["x"].tolist() == [1.0, 3.0]
    with pytest.raises(tw.ArgumentError, match="missing"):
        hf_dataset(tmp_path / "gap", missing="ignore")


CONFIG = """[data]
"@datasets" = "hf_dataset.v1"
path = "{path}"
label = "label"
columns = ["score", "vec"]

[model]
inputs = ["score", "vec"]
targets = ["label"]
outputs = ["logits"]
loss = "loss"

[model.nodes]
score = {{ input = [] }}
vec = {{ input = [3] }}
label = {{ input = [], dtype = "int64" }}
score1 = {{ "@layers" = "Reshape.v1", inputs = ["score"], shape = [1] }}
both = {{ "@layers" = "Concat.v1", inputs = ["score1", "vec"] }}
logits = {{ "@layers" = "Linear.v1", inputs = ["both"], n_units = 3 }}
loss = {{ "@losses" = "sparse_categorical_cross_entropy.v1", inputs = ["label", "logits"], from_logits = true }}

[optimizer]
"@optimizers" = "Adam.v1"
learning_rate = 0.01

[train]
epochs = 1
batch_size = 4
"""


@pytest.mark.slow
def test_tensorweave_train_on_a_saved_dataset_dict(saved: dict[str, Path], tmp_path: Path) -> None:
    """A real ``tensorweave train`` on a DatasetDict folder: 1 epoch on its train split,
    validated on its saved validation split."""
    (tmp_path / "t.toml").write_text(CONFIG.format(path=saved["dd"].as_posix()))
    env = {
        **os.environ,
        "TF_CPP_MIN_LOG_LEVEL": "3",
        "TENSORWEAVE_BLOCK": "tensorweave-conflict-demo",
    }
    exe = Path(sys.executable).with_name("tensorweave")
    done = subprocess.run(
        [str(exe), "train", "t.toml", "--run-dir", "run"],
        capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["train_examples"] == 10 and summary["steps"] == 3 and "loss" in summary["valid"]
