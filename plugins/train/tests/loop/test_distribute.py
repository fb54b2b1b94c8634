"""The loop under tf.distribute: MirroredStrategy on 2 logical CPUs and
MultiWorkerMirroredStrategy with 2 worker processes on localhost train to the same weights as
one device; ``shard_mode`` follows ``[train] shard`` and a dataset's auto-shard policy."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parents[1]  # the tests root: the helper scripts and modules


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(*args):
    env = dict(os.environ, PYTHONPATH=str(HERE), TF_CPP_MIN_LOG_LEVEL="3")
    env.pop("TF_CONFIG", None)
    return subprocess.Popen(
        [sys.executable, str(HERE / "twtrain_dist_script.py"), *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _compare(path):
    d = np.load(path)
    arrays = sorted((k for k in d.files if k.startswith("arr_")), key=lambda k: int(k[4:]))
    half = len(arrays) // 2
    assert half > 0
    for a, b in zip(arrays[:half], arrays[half:]):
        np.testing.assert_allclose(d[a], d[b], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(d["single_loss"], d["dist_loss"], rtol=1e-4)


@pytest.mark.slow
def test_mirrored_and_multi_worker_match_single_device(tmp_path):
    ports = [_free_port(), _free_port()]
    procs = {
        "mirrored": _start("mirrored", tmp_path / "mirrored.npz"),
        "worker0": _start("worker", 0, *ports, tmp_path / "w0.npz"),
        "worker1": _start("worker", 1, *ports, tmp_path / "w1.npz"),
    }
    try:
        for name, proc in procs.items():
            out, err = proc.communicate(timeout=240)
            assert proc.returncode == 0 and "ok" in out, f"{name}: {err[-3000:]}"
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
    for name in ("mirrored.npz", "w0.npz", "w1.npz"):
        _compare(tmp_path / name)


def test_shard_mode_is_the_setting_else_the_datasets_own_policy() -> None:
    import tensorflow as tf

    import tensorweave as tw
    from tensorweave_train.loop.distribute import shard_mode

    policy = tf.data.experimental.AutoShardPolicy
    assert shard_mode({"x": np.zeros(3)}) == "data" and shard_mode(None, "off") == "off"
    for given, expected in [(policy.AUTO, "data"), (policy.DATA, "data"), (policy.OFF, "off")]:
        options = tf.data.Options()
        options.experimental_distribute.auto_shard_policy = given
        assert shard_mode(tf.data.Dataset.range(4).with_options(options)) == expected
        assert shard_mode(tf.data.Dataset.range(4).with_options(options), "data") == "data"
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = policy.FILE
    with pytest.raises(tw.ArgumentError, match=r"FILE auto-shard policy.*Fix: shard the files"):
        shard_mode(tf.data.Dataset.range(4).with_options(options))
    with pytest.raises(tw.ArgumentError, match=r"not a sharding\. Fix: one of auto, data, off"):
        shard_mode(None, "files")
