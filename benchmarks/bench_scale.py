"""Scale: graph build + compile time for 10, 100, 1,000 and 5,000 layers, and memory.

For each size a chain of small dense layers (with a skip connection every 10 layers, so the
graph is a DAG, not just a list) is built, validated with ``Graph.build`` and compiled with
``tw.compile`` (the ``tf.function`` is traced once through ``get_concrete_function``). The
exponent ``k`` in ``time ~ n**k`` is fitted by least squares on log-log; goal ``k <= 1.1``.
Memory: resident set growth after building the largest graph.

Run: ``python benchmarks/bench_scale.py [--quick] [--json out.json]``
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import resource
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np

import tensorweave as tw

from common import Dense, summary_row, write_json


def build_chain(n_layers: int, width: int = 8) -> tw.Layer:
    x = tw.Input(n_units=width, name="x")
    h: tw.Layer = x
    skip: tw.Layer = x
    for i in range(n_layers):
        h = Dense(h, width)
        if i % 10 == 9:
            h = h + skip
            skip = h
    return h


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(n_layers: int) -> dict[str, float]:
    tw.reset_names()
    start = time.perf_counter()
    out = build_chain(n_layers)
    built = time.perf_counter()
    graph = tw.Graph.build(outputs=out)
    validated = time.perf_counter()
    compiled = tw.compile(graph)
    compiled.function.get_concrete_function()
    traced = time.perf_counter()
    return {
        "layers": float(n_layers),
        "nodes": float(len(graph)),
        "construct_s": built - start,
        "graph_build_s": validated - built,
        "compile_s": traced - validated,
        "total_s": traced - start,
    }


def fit_exponent(sizes: list[float], times: list[float]) -> float:
    """Slope of log(time) against log(size)."""
    slope, _ = np.polyfit(np.log(sizes), np.log(times), 1)
    return float(slope)


def main() -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="stop at 500 layers")
    parser.add_argument("--json")
    args = parser.parse_args()
    sizes = [10, 100, 500] if args.quick else [10, 100, 1000, 5000]
    measure(10)  # warm up TensorFlow's tracing machinery
    rows = []
    rss_before = rss_mb()
    for n in sizes:
        gc.collect()
        rows.append(measure(n))
        print(
            f"{n:6d} layers ({int(rows[-1]['nodes']):6d} nodes): construct "
            f"{rows[-1]['construct_s']:7.3f}s  Graph.build {rows[-1]['graph_build_s']:7.4f}s  "
            f"compile+trace {rows[-1]['compile_s']:7.3f}s  total {rows[-1]['total_s']:7.3f}s",
            flush=True,
        )
    big = [r for r in rows if r["layers"] >= 100]
    exponents = {
        key: fit_exponent([r["nodes"] for r in big], [r[key] for r in big])
        for key in ("construct_s", "graph_build_s", "compile_s", "total_s")
    }
    results: dict[str, object] = {
        "rows": rows,
        "exponents": exponents,
        "rss_growth_mb": rss_mb() - rss_before,
        "largest_layers": sizes[-1],
    }
    for key, k in exponents.items():
        ok = "ok" if k <= 1.1 else "MISSED"
        print(f"fitted exponent {key:14s} k = {k:5.2f}  (goal <= 1.1: {ok})")
    mb = results["rss_growth_mb"]
    per_layer = float(mb) * 1024 / sizes[-1] if not math.isclose(float(mb), 0) else 0.0
    print(
        f"memory: +{mb:.0f} MB resident after building up to {sizes[-1]} layers ({per_layer:.1f} KB/layer)"
    )
    results["summary"] = [
        summary_row("build+compile cost exponent k (time ~ n^k)", exponents["total_s"], 1.1),
        summary_row(f"build+compile {sizes[-1]} layers", rows[-1]["total_s"], None, unit="s"),
        summary_row(f"memory after {sizes[-1]} layers", float(mb), None, unit="MB"),
    ]
    write_json(args.json, results)
    return results


if __name__ == "__main__":
    main()
