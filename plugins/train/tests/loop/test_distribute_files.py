"""A file dataset under ``MultiWorkerMirroredStrategy``: two real worker processes on 8
TFRecord shards each read only their own share (``Stream.sharded``), together every example
exactly once per epoch, and end with the weights of one process trained on the same global
batches."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf

HERE = Path(__file__).parents[1]  # the tests root: the helper scripts and modules


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def write_shards(root: Path, shards: int = 8, per: int = 5) -> list[int]:
    """``shards`` TFRecord files of ``per`` examples: ``id``, ``x`` (4 floats), ``t``."""
    root.mkdir()
    rng = np.random.default_rng(0)
    ids = []
    for k in range(shards):
        with tf.io.TFRecordWriter(str(root / f"part-{k}.tfrecord")) as w:
            for i in range(per):
                ident = k * 100 + i
                x = rng.normal(size=4).astype("float32")
                t = np.sin(x[:1]) + 0.5 * x[1:2]
                feats = {
                    "id": tf.train.Feature(int64_list=tf.train.Int64List(value=[ident])),
                    "x": tf.train.Feature(float_list=tf.train.FloatList(value=x)),
                    "t": tf.train.Feature(float_list=tf.train.FloatList(value=t)),
                }
                example = tf.train.Example(features=tf.train.Features(feature=feats))
                w.write(example.SerializeToString())
                ids.append(ident)
    return ids


@pytest.mark.slow
def test_two_workers_read_their_own_shards_every_example_once_same_weights(
    tmp_path: Path,
) -> None:
    ids = write_shards(tmp_path / "shards")
    ports = [_free_port(), _free_port()]
    env = dict(os.environ, PYTHONPATH=str(HERE), TF_CPP_MIN_LOG_LEVEL="3")
    env.pop("TF_CONFIG", None)
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                str(HERE / "twtrain_files_dist_script.py"),
                str(i),
                *map(str, ports),
                str(tmp_path / "shards"),
                str(tmp_path / f"w{i}.json"),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for i in range(2)
    ]
    try:
        for i, proc in enumerate(procs):
            out, err = proc.communicate(timeout=240)
            assert proc.returncode == 0 and "ok" in out, f"worker {i}: {err[-3000:]}"
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
    w0, w1 = (json.loads((tmp_path / f"w{i}.json").read_text()) for i in range(2))
    for epoch in ("0", "1"):
        a, b = w0["ids"][epoch], w1["ids"][epoch]
        assert len(a) == len(b) == 20  # 4 files each, in batches of 4 (the global 8 halved)
        assert {i // 100 for i in a} == {0, 2, 4, 6} and {i // 100 for i in b} == {1, 3, 5, 7}
        assert sorted(a + b) == sorted(ids)  # every example exactly once per epoch
    assert w0["ids"]["0"] != w0["ids"]["1"]  # a new seeded order each epoch
    for mine, theirs, single in zip(w0["weights"], w1["weights"], w0["single"], strict=True):
        np.testing.assert_array_equal(mine, theirs)
        np.testing.assert_allclose(mine, single, rtol=1e-5, atol=1e-6)
