"""Helpers of the store tests: a process recording into a test store."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["store_env", "tensorweave", "digits_args"]


def store_env(store_url: str, tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment of a process that records into ``store_url``."""
    env = dict(os.environ)
    env.update(
        TENSORWEAVE_STORE=store_url,
        TENSORWEAVE_STORE_BLOBS=str(tmp_path / "blobs"),
        TENSORWEAVE_STORE_CACHE=str(tmp_path / "cache"),
        TENSORWEAVE_RUNS=str(tmp_path / "runs"),
        TF_CPP_MIN_LOG_LEVEL="3",
        CUDA_VISIBLE_DEVICES="-1",
        **extra,
    )
    return env


def tensorweave(args: Sequence[str], env: dict[str, str], cwd: Path, **kw) -> subprocess.Popen:
    """Start the real ``tensorweave`` command (``python -m tensorweave.cli``)."""
    script = Path(sys.executable).with_name("tensorweave")
    return subprocess.Popen(
        [str(script), *args],
        env=env,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kw,
    )


def digits_args(name: str, run_dir: Path, *more: str) -> list[str]:
    """A quick digits job: 2 small epochs."""
    return [
        "train",
        "--quiet",
        f"--run-dir={run_dir}",
        f"--run.name={name}",
        "--train.epochs=2",
        "--train.limit=300",
        "--dims.hidden=16",
        *more,
    ]
