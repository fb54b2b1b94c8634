"""Run every benchmark, print one table of figures against their goals, write JSON and a plot.

Each ``bench_*.py`` script in this folder runs in its own process (so one benchmark's
TensorFlow state never colours another's) with ``--json``, and reports ``summary`` rows:
a figure measured against its baseline in the same run (a ratio, mostly), its goal and
whether it was met. This script gathers them into ``benchmarks/results/results.json`` and
``benchmarks/results/results.png``.

Run: ``python benchmarks/run_all.py [--quick] [--only NAME ...] [--out DIR]``
(``--quick``: every script with ``--quick`` - fewer rounds, smaller data, no memory runs -
for the same table in about two minutes on 2 quiet cores; each script's seconds are printed
after its output).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def discover(only: list[str] | None) -> list[Path]:
    scripts = sorted(HERE.glob("bench_*.py"))
    if only:
        scripts = [s for s in scripts if any(o in s.stem for o in only)]
    return scripts


def run_one(script: Path, out_dir: Path, quick: bool) -> dict[str, Any]:
    target = out_dir / f"{script.stem}.json"
    cmd = [sys.executable, str(script), "--json", str(target)] + (["--quick"] if quick else [])
    # the scripts' own commands (``tensorweave ...``) from the same environment as this Python
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PATH=path)
    start = time.perf_counter()
    print(f"\n### {script.stem}  ({' '.join(cmd[1:])})", flush=True)
    proc = subprocess.run(cmd, env=env, cwd=HERE, text=True, capture_output=True)
    print(proc.stdout.rstrip())
    elapsed = time.perf_counter() - start
    print(f"({script.stem}: {elapsed:.1f} s)", flush=True)
    if proc.returncode != 0 or not target.exists():
        tail = "\n".join(proc.stderr.strip().splitlines()[-15:])
        print(f"!! {script.stem} failed (exit {proc.returncode}):\n{tail}")
        return {"name": script.stem, "error": tail, "seconds": elapsed, "summary": []}
    data = json.loads(target.read_text())
    return {
        "name": script.stem,
        "seconds": elapsed,
        "summary": data.get("summary", []),
        "data": data,
    }


def print_table(results: list[dict[str, Any]]) -> None:
    """One line per figure; ``?`` when a figure's confidence interval (shown after it)
    contains its goal, so the run can tell neither way."""
    print("\n" + "=" * 100)
    print(f"{'benchmark':18s} {'figure':52s} {'value':>10s} {'goal':>9s}  met")
    print("-" * 100)
    for res in results:
        if "error" in res:
            print(f"{res['name']:18s} {'FAILED: see above':52s}")
            continue
        if not res["summary"]:
            print(f"{res['name']:18s} {'(no summary rows)':52s}")
        for row in res["summary"]:
            ok = {True: "yes", False: "NO", None: "?" if row.get("goal") else ""}[row.get("ok")]
            value = f"{row['value']:.3f}{row.get('unit', '')}"
            ci = " [{:.3f}-{:.3f}]".format(*row["ci95"]) if row.get("ci95") else ""
            print(
                f"{res['name']:18s} {row['figure'][:52]:52s} {value:>10s} {row['goal']:>9s}"
                f"  {ok}{ci}"
            )
    print("=" * 100)


def plot(results: list[dict[str, Any]], path: Path) -> bool:
    """A horizontal bar per ratio figure (x hand-written TF), with the goal marked."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot (pip install matplotlib)")
        return False
    rows = [
        (f"{r['name'].removeprefix('bench_')}: {row['figure']}", row)
        for r in results
        for row in r["summary"]
        if row.get("unit") == "x"
    ]
    if not rows:
        return False
    fig, ax = plt.subplots(figsize=(11, 0.45 * len(rows) + 1.5))
    labels = [label[:70] for label, _ in rows]
    values = [row["value"] for _, row in rows]
    colors = [
        {True: "#2a9d8f", False: "#e76f51", None: "#8d99ae"}[row.get("ok")] for _, row in rows
    ]
    ax.barh(range(len(rows)), values, color=colors)
    ax.axvline(1.0, color="black", linewidth=1)
    ax.set_yticks(range(len(rows)), labels, fontsize=8)
    ax.invert_yaxis()
    for i, v in enumerate(values):
        ax.text(v, i, f" {v:.3f}", va="center", fontsize=8)
    ax.set_xlabel("ratio against the baseline measured in the same run (green: goal met)")
    ax.set_title("tensorweave benchmarks")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short runs (about 2 minutes)")
    parser.add_argument("--only", nargs="*", help="run the benchmarks whose name contains these")
    parser.add_argument("--out", default=str(HERE / "results"), help="where JSON and PNG go")
    args = parser.parse_args()
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    results = [run_one(s, out_dir, args.quick) for s in discover(args.only)]
    print_table(results)
    (out_dir / "results.json").write_text(json.dumps(results, indent=2, default=float))
    png = out_dir / "results.png"
    drew = plot(results, png)
    print(f"figures: {out_dir / 'results.json'}" + (f", plot: {png}" if drew else ""))
    print(f"total {time.perf_counter() - start:.0f}s")
    return 1 if any("error" in r for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
