"""``table.v1`` against pandas on the same files, its splits and its bad-input errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tensorweave as tw
from tensorweave_data.files.errors import FileDataError
from tensorweave_data.files.table import table

pd = pytest.importorskip("pandas")

HEADER = "id,size,city,price\n"


def write_rows(path: Path, start: int, n: int) -> Path:
    rng = np.random.default_rng(start)
    lines = [HEADER]
    for i in range(start, start + n):
        city = ["Oslo", "Bergen", '"Tromsø, north"'][i % 3]
        lines.append(f"{i},{rng.integers(1, 9)},{city},{rng.normal() * 1000:.4f}\n")
    path.write_text("".join(lines), encoding="utf-8")
    return path


def rows(stream, fields):
    out = {f: [] for f in fields}
    for batch in stream.batches(fields, batch_size=7):
        for f, t in zip(fields, batch, strict=True):
            out[f] += t.numpy().tolist()
    return out


def test_same_rows_and_values_as_pandas(tmp_path: Path) -> None:
    """Tolerance: float32 values equal pandas's float64 ones to a relative 1e-6."""
    f = write_rows(tmp_path / "t.csv", 0, 50)
    d = table(f, label="price", validation_split=0.0)
    ref = pd.read_csv(f)
    got = rows(d.train, list(ref.columns))
    assert d.info["types"] == {"id": "int64", "size": "int64", "city": "string", "price": "float32"}
    assert got["id"] == ref["id"].tolist() and got["size"] == ref["size"].tolist()
    assert [c.decode() for c in got["city"]] == ref["city"].tolist()
    np.testing.assert_allclose(got["price"], ref["price"].to_numpy(), rtol=1e-6)
    assert len(d.train) == 50 and d.info["label"] == ["price"]
    assert d.info["features"] == ["id", "size", "city"]


def test_parquet_same_as_pandas(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    ref = pd.read_csv(write_rows(tmp_path / "t.csv", 0, 30))
    ref.to_parquet(tmp_path / "t.parquet")
    d = table(tmp_path / "t.parquet", validation_split=0.0)
    got = rows(d.train, list(ref.columns))
    assert got["id"] == ref["id"].tolist()
    assert [c.decode() for c in got["city"]] == ref["city"].tolist()
    np.testing.assert_allclose(got["price"], ref["price"].to_numpy(), rtol=1e-6)


def test_shards_by_folder_and_glob_split_every_row_once(tmp_path: Path) -> None:
    shards = tmp_path / "shards"
    shards.mkdir()
    for k in range(4):
        write_rows(shards / f"part-{k}.csv", k * 100, 40)
    every = sorted(rows(table(shards, validation_split=0.0).train, ["id"])["id"])
    assert every == sorted(i for k in range(4) for i in range(k * 100, k * 100 + 40))
    d = table(str(shards / "part-*.csv"), validation_split=0.25, seed=3)
    train, valid = rows(d.train, ["id"])["id"], rows(d.valid, ["id"])["id"]
    assert sorted(train + valid) == every and not set(train) & set(valid)
    assert 20 <= len(valid) <= 60 and len(d.valid) == len(valid)
    assert (
        rows(table(str(shards / "part-*.csv"), validation_split=0.25, seed=3).valid, ["id"])["id"]
        == valid
    )
    # each epoch a seeded order of all the training rows
    e0 = [b[0].numpy().tolist() for b in d.train.batches(["id"], shuffle=True, epoch=0)]
    e1 = [b[0].numpy().tolist() for b in d.train.batches(["id"], shuffle=True, epoch=1)]
    flat0, flat1 = sum(e0, []), sum(e1, [])  # noqa: RUF017
    assert sorted(flat0) == sorted(flat1) == sorted(train) and flat0 != flat1


def test_columns_types_and_closest_names(tmp_path: Path) -> None:
    f = write_rows(tmp_path / "t.csv", 0, 10)
    d = table(f, label="price", columns=["size"], types={"size": "float32"}, validation_split=0.0)
    assert sorted(d.train) == ["price", "size"] and d.train["size"].dtype.name == "float32"
    with pytest.raises(
        FileDataError, match=r"label 'prise' is not a column\. Did you mean 'price'"
    ):
        table(f, label="prise")
    with pytest.raises(FileDataError, match=r"column 'citty' .*Did you mean 'city'"):
        table(f, columns=["citty"])
    with pytest.raises(tw.ArgumentError, match="missing"):
        table(f, missing="ignore")
    with pytest.raises(FileDataError, match=r"matches no file"):
        table(str(tmp_path / "nothing-*.csv"))


def test_missing_values_fill_drop_error(tmp_path: Path) -> None:
    f = tmp_path / "m.csv"
    f.write_text("a,b,c\n1,2.5,x\n2,,y\n3,1.0,\n", encoding="utf-8")
    filled = rows(table(f, validation_split=0.0, fill={"b": -1}).train, ["a", "b", "c"])
    assert filled == {"a": [1, 2, 3], "b": [2.5, -1.0, 1.0], "c": [b"x", b"y", b""]}
    dropped = rows(table(f, validation_split=0.0, missing="drop").train, ["a"])
    assert dropped == {"a": [1]}
    d = table(f, validation_split=0.0, missing="error")
    with pytest.raises(FileDataError, match=r"m\.csv', line 3: column 'b' is missing"):
        rows(d.train, ["a"])


def test_bad_rows_named_by_file_and_line(tmp_path: Path) -> None:
    f = tmp_path / "bad.csv"
    f.write_text("a,b\n1,2\n3\n4,5\n", encoding="utf-8")
    d = table(f, validation_split=0.0)
    with pytest.raises(FileDataError, match=r"bad\.csv', line 3 has 1 fields, the header has 2"):
        rows(d.train, ["a"])
    g = tmp_path / "typed.csv"
    g.write_text("a,b\n1,2\n3,oops\n", encoding="utf-8")
    d = table(g, validation_split=0.0, types={"b": "int64"})
    with pytest.raises(FileDataError, match=r"line 3: column 'b' holds 'oops', not int64"):
        rows(d.train, ["b"])
    h = tmp_path / "other.csv"
    h.write_text("a,c\n1,2\n", encoding="utf-8")
    with pytest.raises(FileDataError, match="same header"):
        table([f, h])


def test_feeds_the_training_loop(tmp_path: Path) -> None:
    from tensorweave_train.loop.data import as_batches

    d = table(write_rows(tmp_path / "t.csv", 0, 20), validation_split=0.0)
    feeds = [tw.Input(shape=[], name="size", dtype="int64"), tw.Input(shape=[], name="price")]
    b = as_batches(dict(d.train), feeds, batch_size=8, shuffle=True, seed=1)
    assert [len(batch[0]) for batch in b.epoch(0)] == [8, 8, 4] and len(b) == 3


CONFIG = """[data]
"@datasets" = "table.v1"
paths = "houses.csv"
label = "expensive"
columns = ["size", "rooms"]
types = { rooms = "float32", size = "float32" }

[model]
inputs = ["size", "rooms"]
targets = ["expensive"]
outputs = ["logits"]
loss = "loss"
metrics = { accuracy = "accuracy" }

[model.nodes]
size = { input = [] }
rooms = { input = [] }
expensive = { input = [], dtype = "int64" }
size1 = { "@layers" = "Reshape.v1", inputs = ["size"], shape = [1] }
rooms1 = { "@layers" = "Reshape.v1", inputs = ["rooms"], shape = [1] }
both = { "@layers" = "Concat.v1", inputs = ["size1", "rooms1"] }
norm = { "@layers" = "BatchNorm.v1", inputs = ["both"] }
logits = { "@layers" = "Linear.v1", inputs = ["norm"], n_units = 2 }
loss = { "@losses" = "sparse_categorical_cross_entropy.v1", inputs = ["expensive", "logits"], from_logits = true }
accuracy = { "@metrics" = "sparse_accuracy.v1", inputs = ["expensive", "logits"] }

[optimizer]
"@optimizers" = "Adam.v1"
learning_rate = 0.05

[train]
epochs = 1
batch_size = 16
"""


def test_tensorweave_train_on_a_csv_file(tmp_path: Path) -> None:
    """A real ``tensorweave train`` on a CSV file: one input per column, 1 epoch."""
    import json
    import os
    import subprocess
    import sys

    rng = np.random.default_rng(0)
    lines = ["size,rooms,city,expensive\n"]
    for i in range(200):
        size = rng.uniform(20, 200)
        lines.append(
            f"{size:.2f},{rng.integers(1, 6)},{['Oslo', 'Bergen'][i % 2]},{int(size > 100)}\n"
        )
    (tmp_path / "houses.csv").write_text("".join(lines))
    (tmp_path / "t.toml").write_text(CONFIG)
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
    d = table(tmp_path / "houses.csv")
    assert summary["train_examples"] == len(d.train) and len(d.train) + len(d.valid) == 200
    assert summary["steps"] == -(-len(d.train) // 16) and "accuracy" in summary["valid"]


@pytest.mark.slow
def test_killed_mid_epoch_and_resumed_gives_the_same_weights(tmp_path: Path) -> None:
    """``table.v1`` (a CSV file, rows shuffled in a seeded buffer): SIGKILL after the
    mid-epoch checkpoint at step 4 (of 6), run again: bit-identical final weights, and the
    checkpoint holds the input position (epoch, batches and examples consumed, the seed of
    the epoch's order)."""
    from .test_image_folder import killed_and_resumed

    rng = np.random.default_rng(0)
    lines = ["size,rooms,city,expensive\n"]
    for i in range(24):  # 6 batches of 4
        size = rng.uniform(20, 200)
        lines.append(
            f"{size:.2f},{rng.integers(1, 6)},{['Oslo', 'Bergen'][i % 2]},{int(size > 100)}\n"
        )
    csv = tmp_path / "houses.csv"
    csv.write_text("".join(lines))
    position = killed_and_resumed(tmp_path, csv, "table")
    assert position["epoch"] == 0 and position["batches"] == 4 and position["examples"] == 16
    assert position["seed"] == 7 and position["batch_size"] == 4 and position["files"] == 1


def test_a_saved_input_position_is_checked_against_the_data(tmp_path: Path) -> None:
    """The position a checkpoint saves (``Batches.position``) names the examples consumed
    and the epoch's order; resuming with another batch size or seed is refused."""
    from tensorweave_train.loop.data import as_batches

    d = table(write_rows(tmp_path / "t.csv", 0, 20), validation_split=0.0)
    feeds = [tw.Input(shape=[], name="size", dtype="int64"), tw.Input(shape=[], name="price")]
    saved = as_batches(dict(d.train), feeds, batch_size=4, shuffle=True, seed=1).position(2, 3)
    assert saved["examples"] == 12 and saved["epoch"] == 2 and saved["order"] is not None
    as_batches(dict(d.train), feeds, batch_size=4, shuffle=True, seed=1).check(saved, 2, 3)
    with pytest.raises(FileDataError, match=r"12 examples into epoch 3 with batch_size 4.*Fix"):
        as_batches(dict(d.train), feeds, batch_size=8, shuffle=True, seed=1).check(saved, 2, 3)
    with pytest.raises(FileDataError, match=r"with seed \(the epoch's order\)"):
        as_batches(dict(d.train), feeds, batch_size=4, shuffle=True, seed=2).check(saved, 2, 3)


@pytest.mark.slow
def test_block_parse_same_examples_same_order_and_resume(tmp_path: Path) -> None:
    """Rows are held out, dropped and parsed in blocks of 1024 (``decode_batch``): over
    blocks (2,500 rows), the examples of a seeded epoch are pandas's rows in the order of
    the seeded shuffle of the kept rows, the same as a row-by-row decode, and a resume at
    row k gives the uninterrupted epoch's tail."""
    import tensorflow as tf

    from tensorweave_data.files.position import epoch_seed
    from tensorweave_data.files.sources import held_out

    f = write_rows(tmp_path / "t.csv", 0, 2500)
    lines = f.read_text(encoding="utf-8").splitlines(keepends=True)
    for i in range(1, len(lines), 7):  # an empty size every 7th row: dropped
        parts = lines[i].split(",")
        lines[i] = ",".join([parts[0], "", *parts[2:]])
    f.write_text("".join(lines), encoding="utf-8")
    d = table(f, missing="drop", validation_split=0.3, seed=5)
    assert d.train.decode_batch == 1024

    ref = pd.read_csv(f, keep_default_na=False, dtype=str)
    valid = held_out(tf.constant(str(f)), tf.range(len(ref), dtype=tf.int64), seed=5,
                     validation_split=0.3).numpy()  # fmt: skip
    kept = ref[~valid & (ref["size"] != "")].reset_index(drop=True)
    order = epoch_seed(0, 1)
    perm = list(tf.data.Dataset.range(len(kept)).shuffle(10_000, seed=order,
                reshuffle_each_iteration=False).as_numpy_iterator())  # fmt: skip
    expected = kept.iloc[perm]

    def read(stream, start=0):
        out = {c: [] for c in ("id", "size", "city", "price")}
        for b in stream.dataset(shuffle=True, seed=0, epoch=1, start=start).batch(256):
            for c in out:
                out[c] += b[c].numpy().tolist()
        return out

    got = read(d.train)
    assert 1000 < len(got["id"]) == len(kept) == len(d.train)
    assert got["id"] == expected["id"].astype(int).tolist()
    assert got["size"] == expected["size"].astype(int).tolist()
    assert [c.decode() for c in got["city"]] == expected["city"].tolist()
    np.testing.assert_allclose(got["price"], expected["price"].astype(float), rtol=1e-6)

    d.train.decode_batch = None  # row by row: what the stream did before blocks
    assert read(d.train) == got
    d.train.decode_batch = 1024
    k = 777
    assert read(d.train, start=k) == {c: v[k:] for c, v in got.items()}
