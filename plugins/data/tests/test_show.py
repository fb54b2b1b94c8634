"""``tensorweave data show``: real subprocesses on a generated image folder, a CSV table and a
config file; the PNG grid it writes; its bad-input errors (exit 2, one line)."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf

from tensorweave_data.show import parse_show, show
from tensorweave_data.split_summary import tile_images

CLASSES = ("cat", "dog", "eel")
PER_CLASS = (2, 3, 5)


def make_images(root: Path) -> Path:
    """PNG files of three classes (2, 3 and 5 images of 6x8 pixels)."""
    for c, (name, n) in enumerate(zip(CLASSES, PER_CLASS, strict=True)):
        (root / name).mkdir(parents=True)
        for i in range(n):
            pixels = np.full((6, 8, 3), 40 * i, np.uint8)
            pixels[..., 0] = 100 * c
            (root / name / f"{i}.png").write_bytes(tf.io.encode_png(pixels).numpy())
    return root


def data_show(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("tensorweave")
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    return subprocess.run(
        [str(exe), "data", "show", *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def png_size(path: Path) -> tuple[int, int]:
    """``(width, height)`` from a PNG file's header (after checking its signature)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)


def test_image_folder_fields_counts_classes_and_grid(tmp_path: Path) -> None:
    make_images(tmp_path / "imgs")
    done = data_show(
        "image_folder.v1",
        "--directory",
        "imgs",
        "--image_size=[4,4]",
        "--validation_split=0",
        "--samples",
        "4",
        "-o",
        "grid.png",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "classes (3): cat, dog, eel" in out
    assert "train: 10 examples" in out and "valid: 0 examples" in out
    assert "x  float32  [None, 4, 4, 3]" in out
    assert "y  int64    [None]  (label)" in out
    assert "class counts: 0 (cat): 2, 1 (dog): 3, 2 (eel): 5" in out
    assert "first 4 sample(s):" in out and "[3] x=float32[4, 4, 3]" in out
    # the first four files in order: cat 0, cat 1, dog 0, dog 1
    assert "y=0 (cat)" in out and "y=1 (dog)" in out
    # four 4x4 images in one row with 2-pixel borders: 4*4 + 5*2 wide, 4 + 2*2 high
    assert png_size(tmp_path / "grid.png") == (26, 8)
    assert "wrote grid.png: 4 samples, 26x8 pixels" in out
    assert "labels, row by row: 0 (cat), 0 (cat), 1 (dog), 1 (dog)" in out
    grid = tf.io.decode_png((tmp_path / "grid.png").read_bytes()).numpy()
    assert grid.shape == (8, 26, 3)
    assert grid[2:6, 2:6, 0].min() == 0 and grid[2:6, 14:18, 0].min() == 100  # cat, dog


def test_table_csv_and_no_count(tmp_path: Path) -> None:
    (tmp_path / "houses.csv").write_text(
        "rooms,city,price\n3,Paris,1.5\n2,Lyon,0.5\n4,Paris,2.0\n1,Nice,0.25\n5,Paris,3.0\n"
    )
    done = data_show(
        "table.v1", "--paths", "houses.csv", "--label", "city", "--samples=2", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "rooms  int64    [None]" in out
    assert "city   string   [None]  (label)" in out
    assert "price  float32  [None]" in out
    # table.v1 holds out no rows by default: every row is in train
    assert "train: 5 examples" in out
    assert "class counts: Lyon: 1, Nice: 1, Paris: 3" in out
    assert "[0] rooms=3  city=Paris  price=1.5" in out
    assert "[1] rooms=2  city=Lyon  price=0.5" in out and "[2]" not in out

    done = data_show("table.v1", "--paths", "houses.csv", "--no-count", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "train: unknown examples (--no-count)" in done.stdout


def test_config_file_with_overrides(tmp_path: Path) -> None:
    make_images(tmp_path / "imgs")
    (tmp_path / "job.toml").write_text(
        '[data]\n"@datasets" = "image_folder.v1"\ndirectory = "imgs"\n'
        'image_size = [4, 4]\nlabels = "categorical"\n'
    )
    done = data_show(
        "job.toml", "--data.validation_split=0.5", "--split", "valid", "--samples=1", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "job.toml [data] (image_folder.v1)" in out
    assert "valid: 5 examples" in out and "train:" not in out
    assert "y  float32  [None, 3]  (label)" in out  # one-hot labels counted by class
    counts = out.split("class counts: ")[1].splitlines()[0]
    assert sum(int(part.split(": ")[1]) for part in counts.split(", ")) == 5


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["image_folder.v1", "--directory", "nope"],
            "image_folder.v1: the folder 'nope' does not exist",
        ),
        (
            ["imag_folder.v1"],
            "is neither a config file nor a dataset. Did you mean 'image_folder.v1'?",
        ),
        (["missing.toml"], "no config file 'missing.toml'"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path: Path, argv: list[str], message: str) -> None:
    done = data_show(*argv, cwd=tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and message in errors[0], done.stderr
    assert not list(tmp_path.iterdir())  # nothing written


def test_show_never_lists_a_stream_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """``show`` reads a stream batch by batch: a stream of 3,000 examples is counted and
    sampled without the whole split ever in one batch."""
    from tensorweave_data import show as show_module
    from tensorweave_data import split_summary
    from tensorweave_data.datasets import DataSplits
    from tensorweave_data.files.streaming import Stream

    def examples(order: int | None) -> tf.data.Dataset:
        return tf.data.Dataset.range(3000).map(lambda i: {"x": tf.cast(i, tf.float32)})

    sizes: list[int] = []
    real = split_summary.batches_of

    def spy(split: object, batch: int = 256):  # type: ignore[no-untyped-def]
        for b in real(split, batch):
            sizes.append(len(b["x"]))
            yield b

    monkeypatch.setattr(show_module, "batches_of", spy)  # the samples
    monkeypatch.setattr(split_summary, "batches_of", spy)  # the counting
    lines: list[str] = []
    data = DataSplits(train=Stream("numbers", examples), valid={"x": np.zeros([0])})  # type: ignore[arg-type]
    show(data, title="numbers", samples=2, out=lines.append, progress=lambda *a, **k: None)
    assert "train: 3,000 examples" in lines and max(sizes) <= 256 and sum(sizes) >= 3000
    assert "    [1] x=1" in lines and "valid: 0 examples" in lines


def test_parse_and_tile() -> None:
    o = parse_show(["my.toml", "--data.seed=3", "--no-count", "--split=valid"])
    assert (o.target, o.overrides, o.count, o.splits) == (
        "my.toml",
        ["--data.seed=3"],
        False,
        ["valid"],
    )
    grid = tile_images(np.ones([2, 3, 3, 1], np.float32))  # [0, 1] floats scaled to 255
    assert grid.shape == (7, 12, 3) and grid[2:5, 2:5].min() == 255


def test_a_sequence_of_ids_is_not_counted_as_classes() -> None:
    """A language model's ``y`` (a window of token ids) is shown, not counted as a class;
    a one-hot ``y`` of the class names is counted by class."""
    from tensorweave_data.datasets import DataSplits

    ids = np.arange(24, dtype=np.int32).reshape(3, 8)
    lines: list[str] = []
    data = DataSplits(train={"x": ids, "y": ids}, valid={"x": ids[:0], "y": ids[:0]})
    data.info["n_classes"] = 30
    show(data, samples=1, out=lines.append, progress=lambda *a, **k: None)
    assert not any("class counts" in line or "(label)" in line for line in lines)
    assert (
        "    [0] x=int32[8] [0, 1, 2, 3, 4, 5, 6, 7]  y=int32[8] [0, 1, 2, 3, 4, 5, 6, 7]" in lines
    )

    onehot = np.eye(2, dtype=np.float32)[[0, 1, 1]]
    data = DataSplits(train={"x": ids, "y": onehot}, valid={"x": ids[:0], "y": onehot[:0]})
    data.info.update(class_names=["a", "b"], n_classes=2)
    lines.clear()
    show(data, samples=1, out=lines.append, progress=lambda *a, **k: None)
    assert "  class counts: 0 (a): 1, 1 (b): 2" in lines
