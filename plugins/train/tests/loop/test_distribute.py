"""tf.distribute: MirroredStrategy on 2 logical CPUs and MultiWorkerMirroredStrategy with 2
worker processes on localhost train to the same weights as one device."""

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
