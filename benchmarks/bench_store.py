"""The store's overhead per epoch: a digits job with recording on vs off, side by side.

In one process, the same small digits job (``--train.epochs=E``) is trained in interleaved
rounds, recording off (``TENSORWEAVE_STORE_RECORD=0``) then on (SQLite under a temporary
runs root, or ``--store URL``), so load from elsewhere on the machine hits both alike. It
reports, per epoch:

- the job's training time per epoch, off and on (median over rounds), the difference of
  the medians, the median of the per-round differences (on minus off, same round) and the
  median of the per-round ratios (on / off, same round: the figure to read on a loaded
  machine, since both halves of a round see the same load);
- the recorder's own cost: the median time of ``RunHandle.log_epoch`` (one transaction:
  the epoch's values and the heartbeat), measured inside the "on" rounds;
- the one-off cost per run: opening the run and, at the end, storing its files.

Run: ``python benchmarks/bench_store.py [--quick] [--rounds 5] [--epochs 5] [--store URL]
[--postgresql] [--json out.json]`` (``--postgresql`` starts a throw-away server with the
``pgserver`` wheel; ``--quick``: 2 rounds of 2 epochs, for run_all.py's quick table).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def _timed(cls: Any, name: str, sink: list[float]) -> Any:
    original = getattr(cls, name)

    def wrapper(*args: Any, **kw: Any) -> Any:
        start = time.perf_counter()
        try:
            return original(*args, **kw)
        finally:
            sink.append(time.perf_counter() - start)

    setattr(cls, name, wrapper)
    return original


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="2 rounds of 2 epochs")
    parser.add_argument("--rounds", type=int, help="interleaved rounds (default 5; quick 2)")
    parser.add_argument("--epochs", type=int, help="epochs per job (default 5; quick 2)")
    parser.add_argument("--store", help="store URL (default: SQLite in a temporary runs root)")
    parser.add_argument("--postgresql", action="store_true", help="use a pgserver PostgreSQL")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args(argv)
    args.rounds = args.rounds or (2 if args.quick else 5)
    args.epochs = args.epochs or (2 if args.quick else 5)

    tmp = Path(tempfile.mkdtemp(prefix="bench-store-"))
    os.environ["TENSORWEAVE_RUNS"] = str(tmp / "runs")
    os.environ["TENSORWEAVE_STORE_BLOBS"] = str(tmp / "blobs")
    server = None
    if args.postgresql:
        import pgserver

        server = pgserver.get_server(str(tmp / "pg"), cleanup_mode="delete")
        args.store = server.get_uri().replace("postgresql://", "postgresql+psycopg://", 1)
    if args.store:
        os.environ["TENSORWEAVE_STORE"] = args.store

    import tensorweave_train as twt
    from tensorweave_store.runs.handle import RunHandle
    from tensorweave_store.store import Store, open_store

    log_epoch: list[float] = []
    start_run: list[float] = []
    artifacts: list[float] = []
    _timed(RunHandle, "log_epoch", log_epoch)
    _timed(Store, "start_run", start_run)
    _timed(RunHandle, "record_artifacts", artifacts)

    overrides = [f"--train.epochs={args.epochs}"]
    per_epoch: dict[str, list[float]] = {"off": [], "on": []}

    def one(mode: str, i: int) -> None:
        os.environ["TENSORWEAVE_STORE_RECORD"] = "1" if mode == "on" else "0"
        cfg = twt.load_config("digits", overrides)
        summary = twt.train_job(cfg, run_dir=tmp / f"{mode}-{i}", out=None, progress=False)
        per_epoch[mode].append(summary["train_seconds"] / summary["epochs"])

    one("off", -1)  # warm-up: TensorFlow, the data, the store's schema
    one("on", -1)
    per_epoch = {"off": [], "on": []}
    log_epoch.clear(), start_run.clear(), artifacts.clear()
    for i in range(args.rounds):
        for mode in ("off", "on") if i % 2 == 0 else ("on", "off"):
            one(mode, i)

    off, on = statistics.median(per_epoch["off"]), statistics.median(per_epoch["on"])
    pairs = [b - a for a, b in zip(per_epoch["off"], per_epoch["on"], strict=True)]
    ratios = [b / a for a, b in zip(per_epoch["off"], per_epoch["on"], strict=True)]
    result = {
        "store": open_store().display_url,
        "rounds": args.rounds,
        "epochs": args.epochs,
        "epoch_ms_off": round(off * 1e3, 2),
        "epoch_ms_on": round(on * 1e3, 2),
        "epoch_ms_difference": round((on - off) * 1e3, 2),
        "epoch_ms_paired_differences": [round(x * 1e3, 1) for x in pairs],
        "epoch_ms_paired_difference_median": round(statistics.median(pairs) * 1e3, 2),
        "paired_ratios": [round(x, 3) for x in ratios],
        "paired_ratio_median": round(statistics.median(ratios), 3),
        "epoch_ms_off_all": [round(x * 1e3, 1) for x in per_epoch["off"]],
        "epoch_ms_on_all": [round(x * 1e3, 1) for x in per_epoch["on"]],
        "log_epoch_ms_median": round(statistics.median(log_epoch) * 1e3, 2),
        "log_epoch_ms_max": round(max(log_epoch) * 1e3, 2),
        "start_run_ms_median": round(statistics.median(start_run) * 1e3, 2),
        "record_artifacts_ms_median": round(statistics.median(artifacts) * 1e3, 2),
    }
    print(
        f"store {result['store']}: {args.rounds} interleaved rounds of {args.epochs} epochs\n"
        f"  epoch time, recording off: {result['epoch_ms_off']:.1f} ms  "
        f"(rounds: {result['epoch_ms_off_all']})\n"
        f"  epoch time, recording on:  {result['epoch_ms_on']:.1f} ms  "
        f"(rounds: {result['epoch_ms_on_all']})\n"
        f"  difference of the medians: {result['epoch_ms_difference']:+.1f} ms per epoch; "
        f"median of the per-round differences: "
        f"{result['epoch_ms_paired_difference_median']:+.1f} ms "
        f"(rounds: {result['epoch_ms_paired_differences']})\n"
        f"  on / off, same round: median {result['paired_ratio_median']:.3f} "
        f"(rounds: {result['paired_ratios']})\n"
        f"  recorder per epoch (log_epoch: values + heartbeat, one transaction): "
        f"median {result['log_epoch_ms_median']:.2f} ms, max {result['log_epoch_ms_max']:.2f} ms\n"
        f"  per run: open {result['start_run_ms_median']:.1f} ms, "
        f"store the run's files {result['record_artifacts_ms_median']:.1f} ms"
    )
    if args.json:
        from common import summary_row  # benchmarks/common.py (light: no TensorFlow)

        result["summary"] = [
            summary_row(
                "store: epoch, recording on (x off, same round)",
                result["paired_ratio_median"],
                None,
                unit="x",
            ),
            summary_row(
                "store: recorder transaction per epoch",
                result["log_epoch_ms_median"],
                None,
                unit="ms",
            ),
        ]
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    if server is not None:
        server.cleanup()
    shutil.rmtree(tmp, ignore_errors=True)
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
