"""Shared benchmark helpers: a minimal dense layer, paired timing, summary rows.

Benchmarks compare against a baseline in the same process and report ratios: both sides are
timed in alternating windows so that load from elsewhere on a shared machine hits both alike.

Importing this module does not import TensorFlow (the light benchmarks - command start-up,
registry, newcomer - must not pay its 5-15 s start-up): ``Dense`` is built on first use.
"""

from __future__ import annotations

import gc
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np


def _make_dense() -> type:
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

    return Dense


_LAZY: dict[str, Any] = {}


def __getattr__(name: str) -> Any:
    """``Dense`` on first use (``from common import Dense`` imports TensorFlow then)."""
    if name == "Dense":
        if name not in _LAZY:
            _LAZY[name] = _make_dense()
        return _LAZY[name]
    raise AttributeError(f"module 'common' has no attribute {name!r}")


def pin_tensorflow_threads(threads: int = 1) -> None:
    """Pin TensorFlow's intra- and inter-op thread pools (call before any op runs): with
    one thread, a call's process CPU time is its own work, not that of idle pool threads."""
    import tensorflow as tf

    tf.config.threading.set_intra_op_parallelism_threads(threads)
    tf.config.threading.set_inter_op_parallelism_threads(threads)


def bootstrap_median_ci(
    values: list[float], *, level: float = 0.95, resamples: int = 2000, seed: int = 0
) -> tuple[float, float]:
    """A block-bootstrap confidence interval of the median of ``values`` (a time series).

    The series is cut into about 40 blocks of consecutive values, and blocks (not single
    values) are drawn with replacement: a drift during the run (another process starting,
    the CPU clocking down) then widens the interval instead of being averaged away."""
    data = np.asarray(values, dtype=float)
    block = max(1, len(data) // 40)
    blocks = data[: len(data) // block * block].reshape(-1, block)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(blocks), size=(resamples, len(blocks)))
    medians = np.median(blocks[picks].reshape(resamples, -1), axis=1)
    tail = (1 - level) / 2 * 100
    lo, hi = np.percentile(medians, [tail, 100 - tail])
    return float(lo), float(hi)


def paired(
    a: Callable[[], Any],
    b: Callable[[], Any],
    calls: int,
    rounds: int,
    *,
    warmup: int = 50,
) -> dict[str, Any]:
    """Per-call process CPU time of ``a`` and ``b`` over many short interleaved windows,
    the median of the per-round ratios (paired) and its bootstrap 95% confidence interval.

    Each round times a window of ``calls`` calls of ``a`` and one of ``b``, their order
    alternating (AB, BA, ...) so that neither always follows the other. The clock is
    ``time.process_time_ns``: time this process did not run (another process had the
    core) is not counted, which removes most of a shared machine's noise; the garbage
    collector is off while they run. ``wall_ratio`` is the same paired median on the
    wall clock, for reference."""
    for _ in range(warmup):
        a(), b()
    cpu: dict[str, list[int]] = {"a": [], "b": []}
    wall: dict[str, list[int]] = {"a": [], "b": []}
    enabled = gc.isenabled()
    gc.disable()  # no collection inside a window (an explicit one costs ~0.2 s with TF loaded)
    try:
        for round_ in range(rounds):
            order = (("a", a), ("b", b)) if round_ % 2 == 0 else (("b", b), ("a", a))
            for key, fn in order:
                w0, c0 = time.perf_counter_ns(), time.process_time_ns()
                for _ in range(calls):
                    fn()
                c1, w1 = time.process_time_ns(), time.perf_counter_ns()
                cpu[key].append(c1 - c0)
                wall[key].append(w1 - w0)
    finally:
        if enabled:
            gc.enable()
    ratios = [x / y for x, y in zip(cpu["a"], cpu["b"], strict=True) if y > 0]
    wall_ratios = [x / y for x, y in zip(wall["a"], wall["b"], strict=True)]
    lo, hi = bootstrap_median_ci(ratios)
    return {
        "tensorweave_us": statistics.median(cpu["a"]) / calls / 1e3,
        "baseline_us": statistics.median(cpu["b"]) / calls / 1e3,
        "ratio": statistics.median(ratios),
        "difference_us": statistics.median(
            (x - y) / calls / 1e3 for x, y in zip(cpu["a"], cpu["b"], strict=True)
        ),
        "ci95": (lo, hi),
        "wall_ratio": statistics.median(wall_ratios),
        "rounds": rounds,
        "calls_per_window": calls,
    }


def verdict(ci: tuple[float, float], goal: float) -> str:
    """Whether a ratio's confidence interval shows it under ``goal``, over it, or neither."""
    lo, hi = ci
    if hi <= goal:
        return f"met (the interval is below {goal:g})"
    if lo > goal:
        return f"NOT met (the interval is above {goal:g})"
    return f"undecided (the interval contains {goal:g})"


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
    figure: str,
    value: float,
    goal: float | None,
    *,
    higher_is_better: bool = False,
    unit: str = "",
    ci: tuple[float, float] | None = None,
) -> dict[str, Any]:
    """One row of a benchmark's summary: the figure, its goal, and whether it was met.

    With ``ci`` (a confidence interval of the figure), the goal counts as met only when the
    whole interval is on the right side of it, missed when the whole interval is on the
    wrong side, and undecided (``ok`` None, shown as ``?``) otherwise."""
    sign = ">=" if higher_is_better else "<="
    row: dict[str, Any] = {
        "figure": figure,
        "value": value,
        "unit": unit,
        "goal": "" if goal is None else f"{sign} {goal:g}",
    }
    if goal is None:
        row["ok"] = None
    elif ci is None:
        row["ok"] = value >= goal if higher_is_better else value <= goal
    else:
        good, bad = (
            (ci[0] >= goal, ci[1] < goal) if higher_is_better else (ci[1] <= goal, ci[0] > goal)
        )
        row["ok"] = True if good else (False if bad else None)
        row["ci95"] = list(ci)
    return row


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


@contextmanager
def keras_policy(name: str) -> Iterator[None]:
    """Keras layers made inside take the dtype policy ``name`` (``"mixed_bfloat16"``…);
    the global policy is put back after."""
    import keras

    old = keras.config.dtype_policy().name
    keras.config.set_dtype_policy(name)
    try:
        yield
    finally:
        keras.config.set_dtype_policy(old)
