"""Mixed precision (issue 27): tensorweave ``mixed_bfloat16`` vs its hand-written twin, Keras, float32.

For each benchmark model (``cnn_lrn``: TensorLayer's CIFAR-10 CNN with its two LRN layers;
``cnn``: the same without them; ``ptb``: the PTB small LSTM; ``word2vec``: skip-gram NCE) six
programs train in one process, one epoch per window, taking turns (the two Keras ``fit``
variants first in each window - the epoch after a Keras epoch runs slower -, the four
others in rotating order): tensorweave ``Model.train`` in float32 and ``mixed_bfloat16``,
the hand-written float32 program and its mixed-bfloat16 twin, Keras 3 ``fit`` in float32
and under the ``mixed_bfloat16`` policy (``precision_models.py`` has them all).

Figures are paired ratios (each window's rate over the other program's in the same window;
median and range over 12 windows by default), each with the issue's goal. Run it twice: on
this shared machine a figure is the range of two runs, not one median (docs/precision.md):

- tw ``mixed_bfloat16`` / its hand-written twin (goal >= 0.97);
- tw ``mixed_bfloat16`` / Keras ``mixed_bfloat16`` fit (goal >= 1: ahead of it);
- ``mixed_bfloat16`` / float32 for tensorweave (goal >= 1 for PTB and word2vec: never
  slower), beside the twin's and Keras's own ratios (no goal: the hardware's ceiling);
- peak RSS of each variant, each alone in a fresh process (``--memory-of``), the bfloat16
  ones beside the float32 ones (not with ``--quick``).

The accuracy goals are measured by ``accuracy_precision.py`` (minutes of training per seed).

Run: ``python benchmarks/bench_precision.py [--quick] [--only cnn cnn_lrn ptb word2vec]
[--windows N] [--no-memory] [--json out.json]``; ``run_all.py`` runs it with the others.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import time
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np
import tensorflow as tf
from bench_models import cnn_data, w2v_data
from precision_models import (
    HAND16,
    HAND32,
    KERAS,
    KERAS16,
    KERAS32,
    PTB_BATCH,
    TW16,
    TW32,
    Epoch,
    ptb_data,
    variants,
)

from common import peak_rss_mb, summary_row, variant_peak_rss, write_json

MODELS = ("cnn_lrn", "cnn", "ptb", "word2vec")
#: the ratios reported: (label, numerator, denominator)
RATIOS = [
    ("tw bf16 / hand-written bf16 twin", TW16, HAND16),
    ("tw bf16 / keras bf16 fit", TW16, KERAS16),
    ("tw bf16 / tw float32", TW16, TW32),
    ("twin bf16 / hand-written float32", HAND16, HAND32),
    ("keras bf16 / keras float32", KERAS16, KERAS32),
    ("tw float32 / hand-written float32", TW32, HAND32),
]


def data_of(model: str, quick: bool) -> tuple[tuple[np.ndarray, ...], int]:
    """The synthetic data of ``model`` and its batch size."""
    if model in ("cnn", "cnn_lrn"):
        return cnn_data(128 * (3 if quick else 12)), 128
    if model == "ptb":
        return ptb_data(PTB_BATCH * (10 if quick else 60)), PTB_BATCH
    return w2v_data(128 * (40 if quick else 200)), 128


def goal_of(model: str, label: str) -> float | None:
    if label.startswith("tw bf16 / hand-written"):
        return 0.97
    if label.startswith("tw bf16 / keras"):
        return 1.0
    if label == "tw bf16 / tw float32" and model in ("ptb", "word2vec"):
        return 1.0  # a layer that gains nothing stays float32: never slower
    return None


def measure(programs: dict[str, Epoch], data: tuple[np.ndarray, ...], batch: int, windows: int) -> dict[str, list[float]]:  # fmt: skip
    """Seconds per epoch of each program over ``windows`` interleaved windows."""
    warm = tuple(d[: batch * 2] for d in data)
    for run in programs.values():
        run(warm, batch)  # trace and warm up
    others = [k for k in programs if k not in KERAS]
    first = [k for k in programs if k in KERAS]
    times: dict[str, list[float]] = {k: [] for k in programs}
    for w in range(-(-windows // len(others)) * len(others)):
        for k in first + others[w % len(others) :] + others[: w % len(others)]:
            gc.collect()
            start = time.perf_counter()
            programs[k](data, batch)
            times[k].append(time.perf_counter() - start)
    return times


def paired(times: dict[str, list[float]], top: str, bottom: str) -> dict[str, float]:
    """The median, range and half-range of ``top``'s rate over ``bottom``'s, window by
    window: on a shared machine one window's figure is not a result, their range is."""
    ratios = [b / t for t, b in zip(times[top], times[bottom], strict=True)]
    return {
        "ratio": statistics.median(ratios),
        "low": min(ratios),
        "high": max(ratios),
        "spread": (max(ratios) - min(ratios)) / 2,
    }


def one_variant(spec: str, quick: bool) -> None:
    """``--memory-of model:label``: train that one program alone (two epochs) and print this
    process's peak RSS in MB."""
    model, label = spec.split(":", 1)
    data, batch = data_of(model, quick)
    run = variants(model)[label]()
    for _ in range(2):
        run(data, batch)
    print(f"{peak_rss_mb():.1f}")


def main() -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="less data, 4 windows, no memory runs")
    parser.add_argument("--only", nargs="+", choices=MODELS, help="these models only")
    parser.add_argument("--windows", type=int, help="timed windows per program (default 12)")
    parser.add_argument("--json")
    parser.add_argument("--memory-of", help="internal: one variant's peak RSS (model:label)")
    parser.add_argument("--no-memory", action="store_true", help="skip the peak-RSS runs")
    args = parser.parse_args()
    if args.memory_of:
        one_variant(args.memory_of, args.quick)
        return {}
    windows = args.windows or (4 if args.quick else 12)  # rounded up to a multiple of 4
    results: dict[str, Any] = {}
    summary = []
    for model in args.only or MODELS:
        tf.random.set_seed(0)
        data, batch = data_of(model, args.quick)
        builders = variants(model)
        times = measure({k: build() for k, build in builders.items()}, data, batch, windows)
        n = (len(data[0]) // batch) * batch
        res: dict[str, Any] = {k: {"per_s": statistics.median(n / t for t in ts)} for k, ts in times.items()}  # fmt: skip
        if not (args.quick or args.no_memory):
            for k in builders:
                res[k]["peak_rss_mb"] = variant_peak_rss(__file__, f"{model}:{k}", False)
        for k, r in res.items():
            mem = f"  peak RSS {r['peak_rss_mb']:7.0f} MB" if "peak_rss_mb" in r else ""
            print(f"{model:8s} {k:28s} {r['per_s']:9.0f} examples/s{mem}", flush=True)
        for label, top, bottom in RATIOS:
            r = paired(times, top, bottom)
            res[label] = r
            goal = goal_of(model, label)
            print(f"{model:8s} {label:34s} {r['ratio']:5.3f}x (range {r['low']:.3f}-{r['high']:.3f})"
                  + (f"  goal >= {goal}" if goal else ""), flush=True)  # fmt: skip
            summary.append(summary_row(f"{model} {label}", r["ratio"], goal, higher_is_better=True, unit="x"))  # fmt: skip
        for low, high in ((TW16, TW32), (HAND16, HAND32), (KERAS16, KERAS32)):
            if "peak_rss_mb" in res[low]:
                summary.append(summary_row(f"{model} peak RSS {low} (x {high})", res[low]["peak_rss_mb"] / res[high]["peak_rss_mb"], None, unit="x"))  # fmt: skip
        results[model] = res
    write_json(args.json, {**results, "summary": summary})
    return results


if __name__ == "__main__":
    main()
