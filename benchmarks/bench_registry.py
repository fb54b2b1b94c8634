"""Registry and import costs: listing 1,000 entry points, lookups, ``import tensorweave``.

Builds 50 fake plugin distributions with 20 layer entry points each (1,000 in all) in a
temporary directory, puts it on ``sys.path`` and measures, in one process:

- listing every name (a fresh scan of installed metadata): goal < 20 ms, and proof that no
  plugin module was imported;
- in fresh subprocesses (medians of several): ``import tensorflow``, then ``import
  tensorweave`` on top of it (goal < 50 ms), then the first lookup of one name (imports that
  one module; its classes subclass ``tw.Layer``, which needs the TensorFlow just imported)
  and a cached lookup. This process never imports TensorFlow.

Run: ``python benchmarks/bench_registry.py [--quick] [--json out.json]`` (``--quick``: 3
listings, 2 subprocesses instead of 7 and 7)
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


# Run in fresh subprocesses, with the fake distributions' folder as argv[1]: the imports
# (TensorFlow, then tensorweave on top of it), then a first and cached lookups of one name
# (its module subclasses tw.Layer, which needs TensorFlow: already imported here, so this
# process pays TensorFlow once and the benchmark's own process never does).
FRESH = """
import sys, time
t0 = time.perf_counter(); import tensorflow; t1 = time.perf_counter()
import tensorweave as tw; t2 = time.perf_counter()
sys.path.insert(0, sys.argv[1]); tw.plugins.refresh(); tw.layers.names()
t3 = time.perf_counter(); tw.layers["Fake07x3.v1"]; t4 = time.perf_counter()
for _ in range(1000):
    tw.layers["Fake07x3.v1"]
t5 = time.perf_counter()
print(t1 - t0, t2 - t1, t4 - t3, len([m for m in sys.modules if m.startswith("twfake_")]), t5 - t4)
"""


def fresh_process_figures(fakes: Path, runs: int) -> dict[str, float]:
    """Medians over ``runs`` fresh subprocesses (interpreter start-up excluded)."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    samples: list[list[float]] = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", FRESH, str(fakes)],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        samples.append([float(v) for v in out.stdout.strip().splitlines()[-1].split()])
    tf_s, tw_s, first_s, modules, cached_s = (statistics.median(c) for c in zip(*samples))
    return {
        "first_lookup_ms": first_s * 1e3,
        "modules_imported_by_first_lookup": modules,
        "cached_lookup_us": cached_s * 1e3,  # 1000 lookups: ms in all = us each
        "import_tensorflow_ms": tf_s * 1e3,
        "import_tensorweave_over_tensorflow_ms": tw_s * 1e3,
    }


def main() -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--json", help="write the figures to this JSON file")
    args = parser.parse_args()
    runs = 3 if args.quick else 7
    import_runs = 2 if args.quick else 7
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

        finally:
            sys.path.remove(tmp)
            tw.plugins.refresh()
        results.update(fresh_process_figures(Path(tmp), import_runs))

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
