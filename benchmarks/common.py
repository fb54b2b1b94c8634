"""Shared benchmark helpers: a minimal dense layer and paired, alternating timing.

Benchmarks compare against a baseline in the same process and report ratios: both sides are
timed in alternating windows so that load from elsewhere on a shared machine hits both alike.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw


class Dense(tw.Layer):
    """A minimal dense layer (the benchmark needs no plugin): ``relu(x @ w + b)``."""

    def __init__(
        self, x: tw.Layer, n_units: int, *, relu: bool = True, name=None, share_state_with=None
    ) -> None:
        self.n_in, self.relu = x.n_units, relu
        super().__init__(x, shape=(None, n_units), name=name, share_state_with=share_state_with)

    def init_state(self) -> None:
        limit = np.sqrt(6 / (self.n_in + self.n_units))
        self.state.w = tf.Variable(tf.random.uniform([self.n_in, self.n_units], -limit, limit))
        self.state.b = tf.Variable(tf.zeros([self.n_units]))

    def compute(self, x: tf.Tensor) -> tf.Tensor:
        y = tf.matmul(x, self.state.w) + self.state.b
        return tf.nn.relu(y) if self.relu else y


def paired(
    a: Callable[[], Any], b: Callable[[], Any], calls: int, windows: int
) -> dict[str, float]:
    """Median per-call time of ``a`` and ``b`` over interleaved windows, and their ratio.

    The two alternate which goes first (ABBA...), so the one that follows the other is
    not always the same; the ratio is the median of the per-round ratios (paired), and
    ``ratio_spread`` their half-range."""
    for _ in range(max(20, calls // 10)):
        a(), b()
    ta, tb = [], []
    for round_ in range(windows):
        order = ((a, ta), (b, tb)) if round_ % 2 == 0 else ((b, tb), (a, ta))
        for fn, sink in order:
            start = time.perf_counter()
            for _ in range(calls):
                fn()
            sink.append((time.perf_counter() - start) / calls)
    ma, mb = statistics.median(ta), statistics.median(tb)
    ratios = [x / y for x, y in zip(ta, tb, strict=True)]
    return {
        "tensorweave_us": ma * 1e6,
        "baseline_us": mb * 1e6,
        "ratio": statistics.median(ratios),
        "ratio_spread": (max(ratios) - min(ratios)) / 2,
    }


def windows(fn: Callable[[], Any], n_windows: int, calls: int) -> list[float]:
    """Per-call seconds of ``fn`` in each of ``n_windows`` windows of ``calls`` calls."""
    out = []
    for _ in range(n_windows):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        out.append((time.perf_counter() - start) / calls)
    return out


def summary_row(
    figure: str, value: float, goal: float | None, *, higher_is_better: bool = False, unit: str = ""
) -> dict[str, Any]:
    """One row of a benchmark's summary: the figure, its goal, and whether it was met."""
    ok = None if goal is None else (value >= goal if higher_is_better else value <= goal)
    sign = ">=" if higher_is_better else "<="
    return {
        "figure": figure,
        "value": value,
        "unit": unit,
        "goal": "" if goal is None else f"{sign} {goal:g}",
        "ok": ok,
    }


def write_json(path: str | None, results: dict[str, Any]) -> None:
    """Write ``results`` as JSON when a path was given (``summary`` rows feed run_all.py)."""
    if path:
        Path(path).write_text(json.dumps(results, indent=2, default=float))


def peak_rss_mb() -> float:
    """This process's peak resident memory so far, in MB: ``VmHWM`` of /proc/self/status
    on Linux (``ru_maxrss`` survives ``exec``, so a child started by a big parent would
    report the parent's peak), else ``ru_maxrss``."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def variant_peak_rss(script: str, spec: str, quick: bool) -> float:
    """Peak RSS (MB) of one benchmark variant run alone: ``script --memory-of spec`` in a
    fresh process trains only that variant and prints its ``peak_rss_mb()``. A process of
    its own is the only clean way: TensorFlow never gives memory back, so in a shared
    process a variant's peak hides under whichever ran before it."""
    cmd = [sys.executable, script, "--memory-of", spec] + (["--quick"] if quick else [])
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    out = subprocess.run(cmd, env=env, check=True, text=True, capture_output=True).stdout
    return float(out.strip().splitlines()[-1])
