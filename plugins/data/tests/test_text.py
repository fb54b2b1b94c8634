"""``text_folder.v1`` against Keras's ``text_dataset_from_directory``; ``text_lines.v1``
against the data pack's Python tokenizer and windows; a real ``tensorweave train`` on it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tensorweave_data.datasets import VOCAB
from tensorweave_data.files.errors import FileDataError
from tensorweave_data.files.text import text_folder, text_lines
from tensorweave_data.processors import shift_targets, tokenize_chars, window


def make_reviews(root: Path) -> Path:
    for c, label in enumerate(("neg", "pos")):
        (root / label).mkdir(parents=True)
        for i in range(6):
            (root / label / f"r{i}.txt").write_text(f"review {i} of {label}: " + "ok " * (c + i))
    (root / "pos" / "notes.md").write_text("not a review")
    return root


def test_text_folder_same_as_keras(tmp_path: Path) -> None:
    import keras

    root = make_reviews(tmp_path / "reviews")
    d = text_folder(root, validation_split=0.0)
    ds = keras.utils.text_dataset_from_directory(
        str(root), shuffle=False, batch_size=None, verbose=False
    )
    kx, ky = zip(*[(x.numpy(), y.numpy()) for x, y in ds], strict=True)
    batches = list(d.train.batches(["x", "y"], batch_size=100))
    assert d.info["class_names"] == ds.class_names == ["neg", "pos"]
    assert [Path(f).name for f in d.train.files()][:2] == ["r0.txt", "r1.txt"]
    assert batches[0][0].numpy().tolist() == list(kx)
    assert batches[0][1].numpy().tolist() == list(ky)
    split = text_folder(root, validation_split=0.25, seed=7)
    kv = keras.utils.text_dataset_from_directory(
        str(root), validation_split=0.25, subset="validation", seed=7, verbose=False
    )
    held = sorted(t for x, _ in kv for t in x.numpy().tolist())
    assert sorted(x for b in split.valid.batches(["x"]) for x in b[0].numpy().tolist()) == held
    assert len(split.train) == 9 and len(split.valid) == 3


def test_text_folder_bad_input(tmp_path: Path) -> None:
    with pytest.raises(FileDataError, match="does not exist"):
        text_folder(tmp_path / "nope")
    root = make_reviews(tmp_path / "r")
    (root / "empty").mkdir()
    with pytest.raises(FileDataError, match=r"class folder .*empty.* has no text files"):
        text_folder(root)


def reference_windows(text: str, seq_len: int, stride: int) -> list[tuple[list[int], list[int]]]:
    ids = tokenize_chars(text, vocab=VOCAB)
    out = []
    for w in window(ids, size=seq_len + 1, stride=stride):
        s = shift_targets({"w": w}, field="w", inputs="x", targets="y")
        out.append((s["x"].tolist(), s["y"].tolist()))
    return out


def windows(stream, **kw) -> list[tuple[list[int], list[int]]]:
    out = []
    for x, y in stream.batches(["x", "y"], batch_size=16, **kw):
        out += list(zip(x.numpy().tolist(), y.numpy().tolist(), strict=True))
    return out


def write_texts(root: Path) -> list[str]:
    root.mkdir()
    texts = []
    for k in range(3):
        text = "".join(f"def f{k}_{i}(x):\n    return x * {i}  # é\n" for i in range(40))
        (root / f"part{k}.txt").write_text(text, encoding="utf-8")
        texts.append(text)
    return texts


def test_text_lines_same_windows_as_the_python_pipeline(tmp_path: Path) -> None:
    texts = write_texts(tmp_path / "code")
    d = text_lines(tmp_path / "code", seq_len=16, strides=8, validation_split=0.0)
    expected = [w for t in texts for w in reference_windows(t, 16, 8)]
    got = windows(d.train)
    assert sorted(got) == sorted(expected) and len(d.train) == len(expected)
    assert d.info["vocab"] == VOCAB and d.train["x"].shape == (None, 16)
    # a seeded order per epoch, the same windows
    e0, e1 = windows(d.train, shuffle=True, epoch=0), windows(d.train, shuffle=True, epoch=1)
    assert sorted(e0) == sorted(expected) and e0 != e1 and e0 == windows(d.train, shuffle=True)


def test_text_lines_split_and_words(tmp_path: Path) -> None:
    texts = write_texts(tmp_path / "code")
    d = text_lines(str(tmp_path / "code" / "*.txt"), seq_len=8, validation_split=0.3, seed=1)
    train, valid = windows(d.train), windows(d.valid)
    every = [w for t in texts for w in reference_windows(t, 8, 8)]
    assert sorted(train + valid) == sorted(every) and valid and train
    w = text_lines(
        tmp_path / "code", seq_len=4, tokenizer="words", vocab_size=5, validation_split=0.0
    )
    vocab = w.info["vocab"]
    assert vocab == ["", "#", "*", "def", "return"]  # the most frequent, ties by name
    words = [t for text in texts for t in text.split()]
    assert w.info["vocab_size"] == 5
    ids = [vocab.index(t) if t in vocab else 0 for t in words[:5]]
    first = windows(w.train)[0]
    assert first[0] == ids[:4] and first[1] == ids[1:5]
    with pytest.raises(FileDataError, match="matches no file"):
        text_lines(tmp_path / "missing.txt")


CONFIG = """
[data]
"@datasets" = "text_lines.v1"
paths = "{root}"
seq_len = 16
validation_split = 0.2

[model]
inputs = ["x"]
targets = ["y"]
outputs = ["logits"]
loss = "loss"

[model.nodes]
x = {{ input = [-1], dtype = "int32" }}
y = {{ input = [-1], dtype = "int32" }}
embed = {{ "@layers" = "Lookup.v1", inputs = ["x"], vocab_size = 101, n_units = 8 }}
logits = {{ "@layers" = "Linear.v1", inputs = ["embed"], n_units = 101 }}
loss = {{ "@losses" = "sequence_cross_entropy.v1", inputs = ["y", "logits"] }}

[optimizer]
"@optimizers" = "Adam.v1"

[train]
epochs = 2
batch_size = 8
"""


def test_tensorweave_train_on_text_files(tmp_path: Path) -> None:
    write_texts(tmp_path / "code")
    config = tmp_path / "lm.toml"
    config.write_text(CONFIG.format(root=(tmp_path / "code").as_posix()))
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
    assert summary["epochs"] == 2 and summary["train_examples"] > 0
    assert np.isfinite(summary["valid"]["loss"])


def test_text_lines_holds_out_the_same_windows_wherever_the_files_are(tmp_path: Path) -> None:
    write_texts(tmp_path / "code")
    shutil.copytree(tmp_path / "code", tmp_path / "elsewhere" / "moved")
    here = text_lines(tmp_path / "code", seq_len=16, validation_split=0.5, seed=1)
    there = text_lines(tmp_path / "elsewhere" / "moved", seq_len=16, validation_split=0.5, seed=1)
    assert windows(here.valid) == windows(there.valid) and len(windows(here.valid)) > 0
