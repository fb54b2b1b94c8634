"""Examples per second: the digits job on 1 worker, then on 2 workers of this machine.

Each round trains the same digits job (``--train.epochs=E``, ``--train.batch_size=B``, the
global batch) twice with the real ``tensorweave train`` command: in one process
(``--train.strategy=default``), then as two ``multi_worker`` processes on localhost ports
(``--workers 127.0.0.1:P0,127.0.0.1:P1 --task 0|1``); the order alternates round by round so
load from elsewhere hits both alike. The figure of a run is the chief's
``train_examples × epochs / train_seconds`` from its ``summary.json`` (the training loop
only: not the processes' start-up or the cluster's forming; the first step's tracing is in
it, so use enough epochs). It reports the median examples/s of each and the median of the
per-round ratios (2 workers / 1 worker, same round).

On one machine the two workers share its cores and add a collective all-reduce per step:
expect a ratio below 1 on 2 cores. The figure says what a second worker costs or gains
here; scaling past one host is what ``multi_worker`` is for (docs/distributed.md).

Run: ``python benchmarks/bench_distributed.py [--quick] [--rounds 3] [--epochs 5]
[--batch-size 64] [--json out.json]`` (``--quick``: 1 round of 2 epochs on 400 examples).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

TENSORWEAVE = str(Path(sys.executable).with_name("tensorweave"))


def _free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def _train(job: list[str], run_dir: Path, workers: int) -> float:
    """Train ``job`` on ``workers`` processes; the chief's examples per second."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", TENSORWEAVE_STORE_RECORD="0")
    env.pop("TF_CONFIG", None)
    command = [TENSORWEAVE, "train", *job, "--quiet", "--run-dir", str(run_dir)]
    if workers == 1:
        tasks = [command]
    else:
        cluster = ",".join(f"127.0.0.1:{p}" for p in _free_ports(workers))
        command += ["--train.strategy=multi_worker", "--workers", cluster]
        tasks = [[*command, "--task", str(i)] for i in range(workers)]
    run_dir.parent.mkdir(parents=True, exist_ok=True)
    procs = [
        subprocess.Popen(t, env=env, cwd=run_dir.parent, stdout=subprocess.DEVNULL) for t in tasks
    ]
    for proc, task in zip(procs, tasks):
        if proc.wait(timeout=1800) != 0:
            raise SystemExit(f"failed (exit {proc.returncode}): {' '.join(task)}")
    summary = json.loads((run_dir / "summary.json").read_text())
    rate: float = summary["train_examples"] * summary["epochs"] / summary["train_seconds"]
    return rate


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="1 round of 2 epochs, 400 examples")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=64, help="the global batch")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.epochs = 1, 2
    job = [f"--train.epochs={args.epochs}", f"--train.batch_size={args.batch_size}"]
    job += ["--train.checkpoint_every=1000"]  # the loop, not the disk
    if args.quick:
        job.append("--data.limit=500")
    tmp = Path(tempfile.mkdtemp(prefix="bench-distributed-"))
    rates: dict[int, list[float]] = {1: [], 2: []}
    try:
        for r in range(args.rounds):
            for workers in (1, 2) if r % 2 == 0 else (2, 1):
                rates[workers].append(_train(job, tmp / f"r{r}-w{workers}" / "run", workers))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    ratios = [two / one for one, two in zip(rates[1], rates[2])]
    result: dict[str, Any] = {
        "rounds": args.rounds,
        "epochs": args.epochs,
        "global_batch": args.batch_size,
        "cpus": os.cpu_count(),
        "examples_per_s_1_worker": round(statistics.median(rates[1]), 1),
        "examples_per_s_2_workers": round(statistics.median(rates[2]), 1),
        "rounds_1_worker": [round(x, 1) for x in rates[1]],
        "rounds_2_workers": [round(x, 1) for x in rates[2]],
        "paired_ratio_median": round(statistics.median(ratios), 3),
    }
    print(
        f"digits job, global batch {args.batch_size}, {args.epochs} epochs, {args.rounds} "
        f"round(s), {result['cpus']} CPUs\n"
        f"  1 worker:  {result['examples_per_s_1_worker']:.0f} examples/s "
        f"(rounds: {result['rounds_1_worker']})\n"
        f"  2 workers: {result['examples_per_s_2_workers']:.0f} examples/s "
        f"(rounds: {result['rounds_2_workers']})\n"
        f"  2 workers / 1 worker, same round: median {result['paired_ratio_median']:.3f}"
    )
    if args.json:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from common import summary_row  # benchmarks/common.py (light: no TensorFlow)

        result["summary"] = [
            summary_row(
                "distributed: 2 workers (x 1 worker, examples/s)",
                result["paired_ratio_median"],
                None,
                unit="x",
            )
        ]
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
