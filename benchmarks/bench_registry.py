"""Registry and import costs: listing 1,000 entry points, lookups, ``import tensorweave``.

Builds 50 fake plugin distributions with 20 layer entry points each (1,000 in all) in a
temporary directory, puts it on ``sys.path`` and measures, in one process:

- listing every name (a fresh scan of installed metadata): goal < 20 ms, and proof that no
  plugin module was imported;
- the first lookup of one name (imports that one module) and a cached lookup;
- ``import tensorweave`` minus ``import tensorflow``, each in a fresh subprocess
  (goal < 50 ms), medians of several runs.

Run: ``python benchmarks/bench_registry.py [--quick] [--json out.json]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

N_DISTS, PER_DIST = 50, 20


def make_fake_distributions(root: Path) -> None:
    """50 distributions ``twfake-NN`` with 20 ``tensorweave.layers`` entry points each."""
    for d in range(N_DISTS):
        pkg = f"twfake_{d:02d}"
        (root / pkg).mkdir()
        lines = [f"_{i} = None" for i in range(PER_DIST)]
        body = "import tensorweave as tw\n\n" + "\n".join(
            f"class Layer{i}(tw.Layer):\n    pass\n" for i in range(PER_DIST)
        )
        (root / pkg / "__init__.py").write_text(body + "\n" + "\n".join(lines) + "\n")
        info = root / f"twfake_{d:02d}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: twfake-{d:02d}\nVersion: 1.0\n"
            "Requires-Dist: tensorweave>=0.1,<0.2\n"
        )
        eps = "\n".join(f"Fake{d:02d}x{i}.v1 = {pkg}:Layer{i}" for i in range(PER_DIST))
        (info / "entry_points.txt").write_text(f"[tensorweave.layers]\n{eps}\n")


def time_import(statement: str, runs: int) -> float:
    """Median wall time (s) of ``python -c statement`` minus interpreter start-up."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    samples = []
    for _ in range(runs):
        code = f"import time; t = time.perf_counter(); {statement}; print(time.perf_counter() - t)"
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
        )
        samples.append(float(out.stdout.strip().splitlines()[-1]))
    return statistics.median(samples)


def main() -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--json", help="write the figures to this JSON file")
    args = parser.parse_args()
    runs = 3 if args.quick else 7
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

    import tensorweave as tw

    results: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        make_fake_distributions(Path(tmp))
        sys.path.insert(0, tmp)
        try:
            listings = []
            for _ in range(runs):
                tw.plugins.refresh()
                start = time.perf_counter()
                names = [n for n in tw.layers.names() if n.startswith("Fake")]
                listings.append(time.perf_counter() - start)
            imported = [m for m in sys.modules if m.startswith("twfake_")]
            assert len(names) == N_DISTS * PER_DIST, len(names)
            results["list_1000_entry_points_ms"] = statistics.median(listings) * 1e3
            results["plugin_modules_imported_by_listing"] = float(len(imported))

            start = time.perf_counter()
            tw.layers["Fake07x3.v1"]
            results["first_lookup_ms"] = (time.perf_counter() - start) * 1e3
            results["modules_imported_by_first_lookup"] = float(
                len([m for m in sys.modules if m.startswith("twfake_")])
            )
            start = time.perf_counter()
            for _ in range(1000):
                tw.layers["Fake07x3.v1"]
            results["cached_lookup_us"] = (time.perf_counter() - start) * 1e3
        finally:
            sys.path.remove(tmp)
            tw.plugins.refresh()

    # Both timed in the same subprocess: TensorFlow first, then tensorweave on top of it.
    results["import_tensorflow_ms"] = time_import("import tensorflow", runs) * 1e3
    results["import_tensorweave_over_tensorflow_ms"] = (
        time_import("import tensorflow; t = time.perf_counter(); import tensorweave", runs) * 1e3
    )

    goals = {
        "list_1000_entry_points_ms": 20.0,
        "plugin_modules_imported_by_listing": 0.0,
        "import_tensorweave_over_tensorflow_ms": 50.0,
    }
    print(f"{'figure':42s} {'value':>10s}  goal")
    for key, value in results.items():
        goal = goals.get(key)
        mark = "" if goal is None else ("  ok" if value <= goal else "  MISSED")
        goal_s = "" if goal is None else f"<= {goal:g}"
        print(f"{key:42s} {value:10.3f}  {goal_s}{mark}")
    if args.json:
        summary = [
            {
                "figure": k,
                "value": v,
                "unit": "",
                "goal": f"<= {goals[k]:g}" if k in goals else "",
                "ok": (v <= goals[k]) if k in goals else None,
            }
            for k, v in results.items()
        ]
        Path(args.json).write_text(json.dumps({**results, "summary": summary}, indent=2))
    return results


if __name__ == "__main__":
    main()
