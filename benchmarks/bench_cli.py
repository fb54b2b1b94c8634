"""Command start-up: ``tensorweave plugins`` and ``describe`` next to ``import tensorflow``.

Each round runs, in fresh processes and in turn (so that load from elsewhere hits all
alike): ``python -c pass`` (the interpreter alone), ``tensorweave plugins``,
``tensorweave describe Linear.v1`` and ``python -c "import tensorflow"``. Reports the
median wall time of each and its ratio to ``import tensorflow`` in the same round.
``--quick``: 3 rounds, and ``import tensorflow`` (5-15 s) timed in the first one only (the
ratios are to that one run).
Goal: listing and describing answer in well under a second and far under TensorFlow's
import, which they never pay.

Run: ``python benchmarks/bench_cli.py [--quick] [--json out.json]``
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from common import summary_row, write_json

# the command of this Python's environment first (a venv's python run by path, PATH unset)
_BESIDE = Path(sys.executable).parent / "tensorweave"
TENSORWEAVE = str(_BESIDE) if _BESIDE.exists() else shutil.which("tensorweave") or "tensorweave"
COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "tensorweave plugins": [TENSORWEAVE, "plugins"],
    "tensorweave describe Linear.v1": [TENSORWEAVE, "describe", "Linear.v1"],
    "import tensorflow": [sys.executable, "-c", "import tensorflow"],
}


def _seconds(cmd: list[str]) -> float:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, env=env, timeout=300)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{cmd} failed: {done.stderr.decode()[-1000:]}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="3 rounds instead of 9, import tensorflow once"
    )
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args()
    if not Path(TENSORWEAVE).exists() and shutil.which(TENSORWEAVE) is None:
        print("tensorweave is not installed in this environment", file=sys.stderr)
        return 1
    rounds = 3 if args.quick else 9
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for round_ in range(rounds):
        for name, cmd in COMMANDS.items():
            if name == "import tensorflow" and args.quick and round_ > 0:
                continue
            times[name].append(_seconds(cmd))
    if args.quick:
        print("(--quick: import tensorflow timed once; the ratios are to that one run)")
    tf_times = times["import tensorflow"] * rounds if args.quick else times["import tensorflow"]
    print(f"{'command':34} {'median s':>9} {'÷ import tensorflow (paired)':>30}")
    rows = []
    results: dict[str, object] = {"rounds": rounds}
    for name, values in times.items():
        ratios = [v / t for v, t in zip(values, tf_times[: len(values)], strict=True)]
        median = statistics.median(values)
        ratio = statistics.median(ratios)
        print(f"{name:34} {median:9.3f} {ratio:17.3f} (spread {min(ratios):.2f}-{max(ratios):.2f})")
        results[name] = {"median_s": median, "ratio_to_import_tensorflow": ratio}
    for name in ("tensorweave plugins", "tensorweave describe Linear.v1"):
        rows.append(summary_row(f"{name} (s)", results[name]["median_s"], 1.0, unit="s"))  # type: ignore[index]
    results["summary"] = rows
    write_json(args.json, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
