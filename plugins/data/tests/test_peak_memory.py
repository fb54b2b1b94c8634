"""Streaming keeps memory flat (issue #35, "How it is checked": the benchmark's peak-RSS
check, smaller): ``tensorweave train`` on 1x and 10x TFRecord data (8 MB and 80 MB of
shards, each a process of its own) peaks at the same resident memory, within 10% of the 1x
run's plus 40 MB of slack (TensorFlow's allocator and thread stacks vary by a few tens of
MB from run to run; reading the 10x data whole would add at least 80 MB)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

WIDTH = 1024  # float32 values per record: 4 kB
SLACK_MB = 40.0

# The child runs the real command line in its own process and reports its own peak RSS:
# VmHWM of /proc/self/status (ru_maxrss would carry the forking parent's peak over exec).
CHILD = """
import sys
from tensorweave.cli import main
try:
    main(sys.argv[2:])
finally:
    hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM:")][0]
    open(sys.argv[1], "w").write(str(int(hwm.split()[1]) / 1024))
"""


def write_shards(folder: Path, megabytes: int, shards: int = 4) -> int:
    """``megabytes`` of ``tf.train.Example`` records (``x`` float32 [1024], ``y`` int64)
    in ``shards`` files under ``folder``; returns the number of records."""
    import tensorflow as tf

    folder.mkdir(parents=True)
    n = megabytes * 1024 * 1024 // (WIDTH * 4)
    rng = np.random.default_rng(0)
    pool = []  # 512 distinct records, written over and over (serializing costs CPU)
    for x in rng.standard_normal((512, WIDTH)).astype(np.float32):
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


CONFIG = """
[data]
"@datasets" = "tfrecord.v1"
paths = "{paths}"
features = {{ x = {{ dtype = "float32", shape = [{width}] }}, y = "int64" }}
validation_split = 0.1
shuffle_buffer = 256
seed = 0

[model]
inputs = ["x"]
targets = ["y"]
outputs = ["logits"]
loss = "loss"

[model.nodes]
x = {{ input = [{width}] }}
y = {{ input = [], dtype = "int64" }}
logits = {{ "@layers" = "Linear.v1", inputs = ["x"], n_units = 2 }}
loss = {{ "@losses" = "sparse_categorical_cross_entropy.v1", inputs = ["y", "logits"], from_logits = true }}

[optimizer]
"@optimizers" = "Adam.v1"
learning_rate = 0.001

[train]
epochs = 1
batch_size = 128
seed = 0
"""


def peak_rss_of_training(tmp: Path, name: str, megabytes: int) -> tuple[float, dict]:
    """Train one epoch on ``megabytes`` of shards in a process of its own: its peak RSS (MB)
    and the run's summary."""
    records = write_shards(tmp / name / "shards", megabytes)
    config = tmp / name / "job.toml"
    config.write_text(CONFIG.format(paths=tmp / name / "shards", width=WIDTH))
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", TENSORWEAVE_STORE_RECORD="0")
    peak = tmp / name / "peak_mb"
    args = ["train", str(config), "--quiet", "--run-dir", str(tmp / name / "run")]
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(peak), *args],
        capture_output=True, text=True, env=env, timeout=600, cwd=tmp,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads((tmp / name / "run" / "summary.json").read_text())
    assert summary["epochs"] == 1
    assert 0.8 * records <= summary["train_examples"] <= records
    return float(peak.read_text()), summary


@pytest.mark.slow
def test_peak_rss_of_a_training_run_does_not_grow_with_the_data(tmp_path: Path) -> None:
    small, small_summary = peak_rss_of_training(tmp_path, "1x", 8)
    large, large_summary = peak_rss_of_training(tmp_path, "10x", 80)
    assert large_summary["train_examples"] > 9 * small_summary["train_examples"]
    print(f"peak RSS: {small:.0f} MB (8 MB of shards), {large:.0f} MB (80 MB)")
    assert large <= small * 1.10 + SLACK_MB, (
        f"peak RSS {large:.0f} MB on 80 MB of shards against {small:.0f} MB on 8 MB: "
        "the data is held in memory somewhere"
    )
