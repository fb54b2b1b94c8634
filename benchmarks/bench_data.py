"""Your own data, at any size (issue 35): images, tables and memory of the file datasets.

Images: a folder of generated 64x64 JPEGs in 10 classes feeding a small CNN for one epoch,
three ways, in interleaved rounds (rotating order): ``image_folder.v1`` through the real
``tensorweave train`` (its ``summary.json``: examples over ``train_seconds``, the loop alone,
start-up excluded), Keras 3 ``image_dataset_from_directory`` + ``fit``, and a hand-written
tf.data pipeline (the same decode, resize, batch, prefetch) + a hand-written training step
(``GradientTape`` in a ``tf.function``) on the same CNN. Figures: each round's
images/s over the hand-written program's in the same round (paired), the median and range;
goal ``image_folder.v1 / hand-written >= 0.97`` and ahead of Keras. The input pipeline alone
(no model): images/s of each loader iterated for one epoch, to show where the limit is.

Tables: a CSV (numbers and one string column) and the same data as Parquet: rows/s of
``table.v1`` (its batches, one epoch), ``tf.data.experimental.make_csv_dataset`` and pandas
(``read_csv``/``read_parquet`` then ``to_numpy``), interleaved rounds, paired ratios.

Memory: peak RSS (``VmHWM`` of the process itself) of ``tensorweave train`` (one epoch of a
linear model, ``tfrecord.v1``) on 1x and Nx TFRecord shards the benchmark writes, each in a
process of its own; goal: the Nx run's peak within 10% of the 1x run's.

Run: ``python benchmarks/bench_data.py [--quick] [--only images pipeline tables memory]
[--images N] [--rows N] [--rss-mb MB] [--rss-scale N] [--rounds N] [--json out.json]``.
Defaults are the issue's sizes (20,000 images, 2,000,000 rows, 420 MB x 10: the 10x set
larger than 4 GB); ``--quick`` is a smoke run (400 images, 10,000 rows, 4 MB x 10, one
round) that finishes in under 2 minutes on 2 cores (figures of a
quick run are dominated by start-up and tracing: a smoke test, not a measurement).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import summary_row, write_json

TENSORWEAVE = str(Path(sys.executable).with_name("tensorweave"))
SIZE, CLASSES, BATCH = 64, 10, 64
ENV = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", TENSORWEAVE_STORE_RECORD="0")

IMAGE_CONFIG = """
[data]
"@datasets" = "image_folder.v1"
directory = "{directory}"
image_size = [{size}, {size}]
validation_split = 0.0
seed = 0

[model]
inputs = ["x"]
targets = ["y"]
outputs = ["logits"]
loss = "loss"

[model.nodes]
x = {{ input = [{size}, {size}, 3] }}
y = {{ input = [], dtype = "int64" }}
scaled = {{ "@layers" = "Rescaling.v1", inputs = ["x"], scale = 0.00392156862745098 }}
conv1 = {{ "@layers" = "Conv2D.v1", inputs = ["scaled"], n_units = 16, kernel_size = 3, padding = "same", activation = "relu" }}
pool1 = {{ "@layers" = "MaxPool2D.v1", inputs = ["conv1"], pool_size = 2 }}
conv2 = {{ "@layers" = "Conv2D.v1", inputs = ["pool1"], n_units = 32, kernel_size = 3, padding = "same", activation = "relu" }}
gap = {{ "@layers" = "GlobalAvgPool.v1", inputs = ["conv2"] }}
logits = {{ "@layers" = "Linear.v1", inputs = ["gap"], n_units = {classes} }}
loss = {{ "@losses" = "sparse_categorical_cross_entropy.v1", inputs = ["y", "logits"], from_logits = true }}

[optimizer]
"@optimizers" = "Adam.v1"
learning_rate = 0.001

[train]
epochs = 1
batch_size = {batch}
seed = 0
checkpoint_every = 1000000
"""

RECORD_CONFIG = """
[data]
"@datasets" = "tfrecord.v1"
paths = "{paths}"
features = {{ x = {{ dtype = "float32", shape = [1024] }}, y = "int64" }}
validation_split = 0.0
shuffle_buffer = 256
seed = 0

[model]
inputs = ["x"]
targets = ["y"]
outputs = ["logits"]
loss = "loss"

[model.nodes]
x = {{ input = [1024] }}
y = {{ input = [], dtype = "int64" }}
logits = {{ "@layers" = "Linear.v1", inputs = ["x"], n_units = 2 }}
loss = {{ "@losses" = "sparse_categorical_cross_entropy.v1", inputs = ["y", "logits"], from_logits = true }}

[optimizer]
"@optimizers" = "Adam.v1"
learning_rate = 0.001

[train]
epochs = 1
batch_size = 256
seed = 0
checkpoint_every = 1000000
"""

# The memory runs: the real command line in a process of its own, reporting its own peak
# (VmHWM; ru_maxrss would carry the forking parent's peak over exec).
CHILD = """
import sys
from tensorweave.cli import main
try:
    main(sys.argv[2:])
finally:
    hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM:")][0]
    open(sys.argv[1], "w").write(str(int(hwm.split()[1]) / 1024))
"""


def make_images(root: Path, n: int) -> None:
    """``n`` 64x64 JPEGs in 10 class folders: a class-coloured square on noise."""
    import tensorflow as tf

    rng = np.random.default_rng(0)
    for i in range(n):
        label = i % CLASSES
        pixels = rng.integers(0, 80, (SIZE, SIZE, 3), dtype=np.uint8)
        y, x = rng.integers(0, SIZE - 24, 2)
        pixels[y : y + 24, x : x + 24] = (label * 25, 255 - label * 25, 128)
        folder = root / f"class_{label}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{i:06d}.jpg").write_bytes(tf.io.encode_jpeg(pixels, quality=90).numpy())


def cnn() -> Any:
    """The CNN of the config, in Keras (for ``fit`` and the hand-written step)."""
    import keras

    return keras.Sequential(
        [
            keras.Input((SIZE, SIZE, 3)),
            keras.layers.Rescaling(1 / 255),
            keras.layers.Conv2D(16, 3, padding="same", activation="relu"),
            keras.layers.MaxPooling2D(2),
            keras.layers.Conv2D(32, 3, padding="same", activation="relu"),
            keras.layers.GlobalAveragePooling2D(),
            keras.layers.Dense(CLASSES),
        ]
    )


def hand_pipeline(root: Path) -> Any:
    """The hand-written tf.data pipeline: the same files and labels, decode, resize, batch."""
    import tensorflow as tf

    classes = sorted(p.name for p in root.iterdir())
    paths = sorted(str(p) for p in root.rglob("*.jpg"))
    labels = [classes.index(Path(p).parent.name) for p in paths]

    def load(path: tf.Tensor, label: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
        image = tf.io.decode_jpeg(tf.io.read_file(path), channels=3)
        return tf.image.resize(image, [SIZE, SIZE]), label

    ds = tf.data.Dataset.from_tensor_slices((paths, tf.constant(labels, tf.int64)))
    ds = ds.shuffle(len(paths), seed=0).map(load, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(BATCH).prefetch(tf.data.AUTOTUNE)


def keras_pipeline(root: Path) -> Any:
    import keras

    return keras.utils.image_dataset_from_directory(
        str(root), image_size=(SIZE, SIZE), batch_size=BATCH, seed=0, verbose=False
    ).prefetch(-1)


def tw_pipeline(root: Path) -> Any:
    import tensorweave as tw

    data = tw.datasets["image_folder.v1"](
        directory=str(root), image_size=[SIZE, SIZE], validation_split=0.0
    )
    return lambda: data.train.batches(["x", "y"], batch_size=BATCH, shuffle=True)


def rate(fn: Callable[[], int]) -> float:
    start = time.perf_counter()
    n = fn()
    return n / (time.perf_counter() - start)


def train_tw(root: Path, work: Path, tag: str) -> float:
    """Images/s of one epoch of ``tensorweave train`` (its loop's own timing)."""
    config = work / "image.toml"
    config.write_text(IMAGE_CONFIG.format(directory=root, size=SIZE, classes=CLASSES, batch=BATCH))
    run = work / f"run-{tag}"
    cmd = [TENSORWEAVE, "train", str(config), "--quiet", "--run-dir", str(run)]
    subprocess.run(cmd, env=ENV, check=True, cwd=work, stdout=subprocess.DEVNULL)
    summary = json.loads((run / "summary.json").read_text())
    shutil.rmtree(run, ignore_errors=True)
    return float(summary["train_examples"] / summary["train_seconds"])


def bench_images(root: Path, work: Path, rounds: int, n: int) -> dict[str, Any]:
    import keras
    import tensorflow as tf

    hand_ds, keras_ds = hand_pipeline(root), keras_pipeline(root)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    # Each variant builds and traces afresh in every round, as `tensorweave train` does in
    # its process (its `train_seconds` include tracing the step, not TensorFlow's start-up).
    def keras_epoch() -> int:
        model = cnn()
        model.compile(keras.optimizers.Adam(0.001), loss_fn)
        model.fit(keras_ds, epochs=1, verbose=0)
        return n

    def hand_epoch() -> int:
        model, optimizer = cnn(), keras.optimizers.Adam(0.001)

        @tf.function
        def step(x: tf.Tensor, y: tf.Tensor) -> tf.Tensor:
            with tf.GradientTape() as tape:
                loss = loss_fn(y, model(x, training=True))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        for x, y in hand_ds:
            step(x, y)
        return n

    variants: dict[str, Callable[[int], float]] = {
        "tensorweave": lambda r: train_tw(root, work, str(r)),
        "keras": lambda r: rate(keras_epoch),
        "hand": lambda r: rate(hand_epoch),
    }
    return interleave(variants, rounds, base="hand")


def bench_pipeline(root: Path, rounds: int) -> dict[str, Any]:
    hand_ds, keras_ds, tw_batches = hand_pipeline(root), keras_pipeline(root), tw_pipeline(root)

    def count(batches: Any) -> int:
        return sum(int(b[0].shape[0]) for b in batches)

    variants = {
        "tensorweave": lambda r: rate(lambda: count(tw_batches())),
        "keras": lambda r: rate(lambda: count(keras_ds)),
        "hand": lambda r: rate(lambda: count(hand_ds)),
    }
    for fn in variants.values():
        fn(-1)  # warm: the first epoch pays the file cache and tracing
    return interleave(variants, rounds, base="hand")


def make_table(work: Path, rows: int) -> tuple[Path, Path]:
    import pandas as pd

    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "age": rng.integers(20, 80, rows),
            "chol": rng.normal(240, 40, rows).round(1),
            "rate": rng.normal(150, 20, rows).round(1),
            "thal": rng.choice(["normal", "fixed", "reversible"], rows),
            "target": rng.integers(0, 2, rows),
        }
    )
    csv, parquet = work / "table.csv", work / "table.parquet"
    frame.to_csv(csv, index=False)
    frame.to_parquet(parquet, index=False)
    return csv, parquet


def bench_tables(work: Path, rows: int, rounds: int) -> dict[str, Any]:
    import pandas as pd
    import tensorflow as tf

    import tensorweave as tw

    csv, parquet = make_table(work, rows)
    fields = ["age", "chol", "rate", "thal", "target"]

    def tw_rows(path: Path) -> int:
        data = tw.datasets["table.v1"](paths=str(path), label="target", validation_split=0.0)
        return sum(int(b[0].shape[0]) for b in data.train.batches(fields, batch_size=1024))

    def tf_rows() -> int:
        ds = tf.data.experimental.make_csv_dataset(
            str(csv), batch_size=1024, num_epochs=1, shuffle=False, label_name="target"
        )
        return sum(int(y.shape[0]) for _, y in ds)

    def pandas_rows(path: Path) -> int:
        frame = pd.read_csv(path) if path.suffix == ".csv" else pd.read_parquet(path)
        arrays = {c: frame[c].to_numpy() for c in frame.columns}
        return len(arrays["target"])

    variants = {
        "tensorweave_csv": lambda r: rate(lambda: tw_rows(csv)),
        "make_csv_dataset": lambda r: rate(tf_rows),
        "pandas_csv": lambda r: rate(lambda: pandas_rows(csv)),
        "tensorweave_parquet": lambda r: rate(lambda: tw_rows(parquet)),
        "pandas_parquet": lambda r: rate(lambda: pandas_rows(parquet)),
    }
    csv_part = interleave({k: variants[k] for k in list(variants)[:3]}, rounds, "make_csv_dataset")
    parquet_part = interleave(
        {k: variants[k] for k in list(variants)[3:]}, rounds, "pandas_parquet"
    )
    return {"csv": csv_part, "parquet": parquet_part, "rows": rows}


def write_shards(folder: Path, megabytes: float, shards: int = 8) -> int:
    """``megabytes`` of records (``x`` float32 [1024], ``y`` int64) in ``shards`` files."""
    import tensorflow as tf

    folder.mkdir(parents=True)
    n = int(megabytes * 1024 * 1024) // 4096
    rng = np.random.default_rng(0)
    pool = []  # 512 distinct records written over and over (serializing costs CPU)
    for x in rng.standard_normal((512, 1024)).astype(np.float32):
        feature = {
            "x": tf.train.Feature(float_list=tf.train.FloatList(value=x)),
            "y": tf.train.Feature(int64_list=tf.train.Int64List(value=[int(x[0] > 0)])),
        }
        pool.append(tf.train.Example(features=tf.train.Features(feature=feature)))
    records = [example.SerializeToString() for example in pool]
    for s in range(shards):
        with tf.io.TFRecordWriter(str(folder / f"part-{s:03d}.tfrecord")) as writer:
            for i in range(s, n, shards):
                writer.write(records[i % len(records)])
    return n


def peak_rss(work: Path, name: str, megabytes: float) -> dict[str, Any]:
    records = write_shards(work / name / "shards", megabytes)
    config = work / name / "job.toml"
    config.write_text(RECORD_CONFIG.format(paths=work / name / "shards"))
    peak = work / name / "peak_mb"
    args = ["train", str(config), "--quiet", "--run-dir", str(work / name / "run")]
    subprocess.run(
        [sys.executable, "-c", CHILD, str(peak), *args],
        env=ENV, check=True, cwd=work, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    summary = json.loads((work / name / "run" / "summary.json").read_text())
    peak_mb = float(peak.read_text())
    shutil.rmtree(work / name, ignore_errors=True)  # the 10x set is large
    return {
        "data_mb": megabytes,
        "records": records,
        "trained_examples": summary["train_examples"],
        "peak_rss_mb": round(peak_mb, 1),
    }


def bench_memory(work: Path, megabytes: float, scale: int) -> dict[str, Any]:
    one = peak_rss(work, "1x", megabytes)
    many = peak_rss(work, f"{scale}x", megabytes * scale)
    return {"1x": one, f"{scale}x": many, "ratio": many["peak_rss_mb"] / one["peak_rss_mb"]}


def interleave(
    variants: dict[str, Callable[[int], float]], rounds: int, base: str
) -> dict[str, Any]:
    """Each variant's rate once per round, the order rotating; each rate over ``base``'s in
    the same round (paired): the median and range of those ratios."""
    names = list(variants)
    rates: dict[str, list[float]] = {k: [] for k in names}
    for r in range(rounds):
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            rates[name].append(variants[name](r))
    out: dict[str, Any] = {"per_s": {k: round(statistics.median(v), 1) for k, v in rates.items()}}
    out["rounds"] = {k: [round(x, 1) for x in v] for k, v in rates.items()}
    for name in names:
        if name != base:
            ratios = [a / b for a, b in zip(rates[name], rates[base], strict=True)]
            out[f"{name}/{base}"] = {
                "median": round(statistics.median(ratios), 3),
                "range": [round(min(ratios), 3), round(max(ratios), 3)],
            }
    return out


def show(title: str, part: dict[str, Any], unit: str) -> None:
    print(f"{title}")
    for name, value in part["per_s"].items():
        print(f"  {name:22s} {value:12,.0f} {unit}/s   rounds {part['rounds'][name]}")
    for key, value in part.items():
        if "/" in key:
            print(f"  {key:34s} median {value['median']:.3f}  range {value['range']}")


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run, under 2 minutes")
    parser.add_argument("--only", nargs="+", choices=["images", "pipeline", "tables", "memory"])
    parser.add_argument("--images", type=int, default=20_000)
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--rss-mb", type=float, default=420.0, help="the 1x TFRecord set, MB")
    parser.add_argument("--rss-scale", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args(argv)
    if args.quick:
        args.images, args.rows, args.rss_mb, args.rounds = 400, 10_000, 4.0, 1
    only = set(args.only or ["images", "pipeline", "tables", "memory"])
    work = Path(tempfile.mkdtemp(prefix="bench-data-"))
    result: dict[str, Any] = {"cpus": os.cpu_count(), "quick": args.quick}
    summary: list[dict[str, Any]] = []
    try:
        root = work / "images"
        if only & {"images", "pipeline"}:
            make_images(root, args.images)
        if "pipeline" in only:
            result["pipeline"] = part = bench_pipeline(root, args.rounds)
            show(f"input pipeline alone, {args.images} 64x64 JPEGs, batch {BATCH}", part, "images")
            summary.append(summary_row("data: image_folder.v1 pipeline (x hand tf.data)",
                                       part["tensorweave/hand"]["median"], None, unit="x"))  # fmt: skip
        if "images" in only:
            result["images"] = part = bench_images(root, work, args.rounds, args.images)
            show(f"one epoch of a small CNN on {args.images} 64x64 JPEGs", part, "images")
            summary.append(summary_row("data: image_folder.v1 train (x hand tf.data + step)",
                                       part["tensorweave/hand"]["median"], 0.97,
                                       higher_is_better=True, unit="x"))  # fmt: skip
            ahead = part["tensorweave/hand"]["median"] / part["keras/hand"]["median"]
            summary.append(summary_row("data: image_folder.v1 train (x Keras fit)", ahead, 1.0,
                                       higher_is_better=True, unit="x"))  # fmt: skip
        if "tables" in only:
            result["tables"] = part = bench_tables(work, args.rows, args.rounds)
            show(f"CSV, {args.rows:,} rows", part["csv"], "rows")
            show(f"Parquet, {args.rows:,} rows", part["parquet"], "rows")
            summary.append(summary_row("data: table.v1 CSV (x make_csv_dataset, rows/s)",
                                       part["csv"]["tensorweave_csv/make_csv_dataset"]["median"],
                                       None, unit="x"))  # fmt: skip
            summary.append(summary_row("data: table.v1 Parquet (x pandas, rows/s)",
                                       part["parquet"]["tensorweave_parquet/pandas_parquet"]["median"],
                                       None, unit="x"))  # fmt: skip
        if "memory" in only:
            result["memory"] = part = bench_memory(work, args.rss_mb, args.rss_scale)
            one, many = part["1x"], part[f"{args.rss_scale}x"]
            print(f"peak RSS of tensorweave train (tfrecord.v1, one epoch): "
                  f"{one['peak_rss_mb']:.0f} MB on {one['data_mb']:g} MB of shards, "
                  f"{many['peak_rss_mb']:.0f} MB on {many['data_mb']:g} MB: "
                  f"x{part['ratio']:.3f}")  # fmt: skip
            summary.append(summary_row(f"data: peak RSS {args.rss_scale}x data (x 1x)",
                                       part["ratio"], 1.10, unit="x"))  # fmt: skip
    finally:
        shutil.rmtree(work, ignore_errors=True)
    result["summary"] = summary
    write_json(args.json, result)
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
