"""``tensorweave runs …``: the runs the store recorded. Every action takes ``--store URL``
(default ``TENSORWEAVE_STORE``, else ``runs/tensorweave-store.db``)::

    tensorweave runs list [--where "val_accuracy>0.95"] [--tag T] [--status S] [--limit N]
                          [--built-with "tensorweave-layers<0.2"]
    tensorweave runs list --read FILE            # the runs that read this data file
    tensorweave runs show RUN [--files]          # RUN: id, run directory or name
    tensorweave runs compare RUN RUN [...] [-o curves.png]
    tensorweave runs tag RUN TAG [...]
    tensorweave runs rm RUN [...]
    tensorweave runs sync RUN [...]              # what a run kept while the store was away
    tensorweave runs env RUN [-o requirements.lock]  # its environment; -o: a pip lock
    tensorweave runs tensorboard [RUN...] [--port P] [--host H]  # TensorBoard over their logs

Exit codes as ``tensorweave train``: 0 success, 1 failure (a store error, with its fix),
2 usage error.

>>> sorted(ACTIONS)[:3]
['compare', 'env', 'list']
>>> _list_parser().parse_args(["--where", "loss<1", "--tag", "a"]).where
['loss<1']
"""

from __future__ import annotations

import os
from typing import Any

from tensorweave.cli.command import CommandParser, UsageError
from tensorweave_store.cli.common import dispatch, open_from, parser

__all__ = ["ACTIONS", "cmd_runs"]


def _list_parser() -> CommandParser:
    p = parser("runs", "list", "List recorded runs, newest first.")
    p.add_argument(
        "--where",
        action="append",
        default=[],
        metavar="KEY OP VALUE",
        help='a figure, field or config path test, e.g. "val_accuracy>0.95"',
    )
    p.add_argument(
        "--config",
        action="append",
        default=[],
        metavar="PATH=VALUE",
        help="runs whose config has this value, e.g. optimizer.learning_rate=0.01",
    )
    p.add_argument("--tag", action="append", default=[], help="runs with this tag")
    p.add_argument("--status", choices=["running", "finished", "failed", "interrupted"])
    p.add_argument("--name", help="runs of this name")
    p.add_argument("--limit", type=int, help="at most N runs (newest first)")
    p.add_argument("--columns", help="figures to show, comma-separated")
    p.add_argument(
        "--read",
        metavar="FILE",
        help="only the runs that read this data file (a file found bad: which runs used it?)",
    )
    p.add_argument(
        "--built-with",
        metavar="DIST SPECIFIER",
        help="only the runs built with these versions of a pack (a component it provided), "
        'e.g. "tensorweave-layers<0.2"',
    )
    return p


def _runs_list(argv: list[str]) -> int:
    from tensorweave_store.cli.report import runs_table
    from tensorweave_store.runs.filters import parse_built_with

    args = _list_parser().parse_args(argv)
    built = parse_built_with(args.built_with) if args.built_with else None  # before the store
    store = open_from(args)
    where = list(args.where) + [c if "=" in c else f"{c}=" for c in args.config]
    runs = store.runs(
        where=where,
        tags=args.tag,
        status=args.status,
        name=args.name,
        limit=None if built or args.read is not None else args.limit,
    )
    if built is not None:
        runs = [r for r in runs if built.holds(r.providers, r.versions)][: args.limit or None]
    if args.read is not None:
        readers = {r.id for r in store.runs_reading(args.read)}
        if not readers:
            print(
                f"no run in {store.display_url} read {os.path.abspath(args.read)} (runs "
                "record their data files by absolute path: give the path they trained on; "
                "`tensorweave runs show RUN --files` lists a run's files)"
            )
            return 0
        runs = [r for r in runs if r.id in readers][: args.limit or None]
    if not runs:
        print(f"no runs match in {store.display_url}")
        return 0
    cols = [c.strip() for c in args.columns.split(",")] if args.columns else []
    print(runs_table(runs, cols))
    if built is not None:  # which version each was built with
        print(f"\nbuilt with {built}:")
        for r in runs:
            print(f"  run {r.id} ({r.name}): {', '.join(built.matched(r.providers, r.versions))}")
    return 0


def _runs_show(argv: list[str]) -> int:
    from tensorweave_store.cli.report import show_run
    from tensorweave_store.db.urls import redact

    p = parser("runs", "show", "Show one run: config providers, versions, curves, files.")
    p.add_argument("run", help="run id, run directory or name")
    p.add_argument("--files", action="store_true", help="list every data file the run read")
    args = p.parse_args(argv)
    store = open_from(args)
    run = store.run(args.run)
    print(redact(show_run(run, store.metrics(run.id), store.artifacts(run.id))))
    print(redact(data_text(store.data(run.id), files=args.files)))
    return 0


def data_text(record: Any, *, files: bool = False) -> str:
    """The ``data`` lines of ``runs show``: how many files the run read, their total size and
    the manifest's sha256 (``files``: one line per file).

    >>> from tensorweave_store.runs.data import DataRecord
    >>> rec = DataRecord("ab" * 32, 1, 2048, [{"path": "/d/a.png", "size": 2048, "sha256": "cd" * 32}])
    >>> print(data_text(rec, files=True))
    data: 1 files, 2048 bytes, manifest sha256:abababababababab…
      /d/a.png  2048 bytes  sha256:cdcdcdcdcdcdcdcd…
    >>> data_text(None)
    'data: no data files recorded (data held in memory, or recorded before manifests were)'
    """
    if record is None:
        return (
            "data: no data files recorded (data held in memory, or recorded before manifests were)"
        )
    lines = [
        f"data: {record.count} files, {record.bytes} bytes, manifest sha256:{record.sha256[:16]}…"
    ]
    if files:
        lines += [
            f"  {f['path']}  {f['size']} bytes  sha256:{f['sha256'][:16]}…" for f in record.files
        ]
    elif record.files:
        lines.append("  (--files lists them)")
    return "\n".join(lines)


def _runs_compare(argv: list[str]) -> int:
    from tensorweave_store.cli.report import compare_text, plot_compare
    from tensorweave_store.db.urls import redact

    p = parser("runs", "compare", "Config differences and metric curves, side by side.")
    p.add_argument("runs", nargs="+", help="two or more runs (id, directory or name)")
    p.add_argument("-o", "--output", help="also draw the curves (.png, .svg or .pdf)")
    args = p.parse_args(argv)
    if len(args.runs) < 2:
        raise UsageError("tensorweave runs compare: give at least two runs")
    store = open_from(args)
    runs = [store.run(r) for r in args.runs]
    metrics = [store.metrics(r.id) for r in runs]
    print(redact(compare_text(runs, metrics)))
    if args.output:
        print(f"\nwrote {plot_compare(runs, metrics, args.output)}")
    return 0


def _runs_tag(argv: list[str]) -> int:
    p = parser("runs", "tag", "Add tags to a run.")
    p.add_argument("run")
    p.add_argument("tags", nargs="+")
    args = p.parse_args(argv)
    store = open_from(args)
    store.tag_run(args.run, args.tags)
    print(f"run {store.run(args.run).id}: tags {', '.join(store.run(args.run).tags)}")
    return 0


def _runs_rm(argv: list[str]) -> int:
    p = parser("runs", "rm", "Delete runs' records (run directories and blobs stay).")
    p.add_argument("runs", nargs="+")
    args = p.parse_args(argv)
    store = open_from(args)
    for ref in args.runs:
        run = store.delete_run(ref)
        print(f"removed run {run.id} ({run.name}); its directory {run.run_dir} is untouched")
    return 0


def _runs_sync(argv: list[str]) -> int:
    p = parser("runs", "sync", "Record what runs kept while the store was out of reach.")
    p.add_argument("runs", nargs="+", help="run directory, id or name")
    args = p.parse_args(argv)
    store = open_from(args)
    for ref in args.runs:
        run_id, count = store.sync(ref)
        run = store.run(run_id)
        done = f"recorded {count} kept record(s)" if count else "nothing kept to record"
        print(f"run {run.id} ({run.name}): {done}; {run.status}, {run.epochs_done} epochs")
    return 0


def _runs_env(argv: list[str]) -> int:
    from tensorweave_train import cmd_runs_env

    return cmd_runs_env(argv)  # a run directory's environment.json: the train pack reads it


def _runs_tensorboard(argv: list[str]) -> int:
    import shutil
    import tempfile
    from pathlib import Path

    from tensorweave_store.cli.boards import (
        board_runs,
        board_view,
        serve_until_stopped,
        start_tensorboard,
    )

    p = parser("runs", "tensorboard", "TensorBoard over runs' logs, each under its name.")
    p.add_argument("runs", nargs="*", help="run directories, ids or names (default: every run)")
    p.add_argument("--port", type=int, default=6006, help="port to serve on (default 6006)")
    p.add_argument("--host", default="127.0.0.1", help="address to serve on (default 127.0.0.1)")
    args = p.parse_args(argv)
    named = board_runs(args.runs, lambda: open_from(args))
    view = Path(tempfile.mkdtemp(prefix="tensorweave-board-"))  # links to the runs
    try:
        url = start_tensorboard(board_view(named, view), args.host, args.port)
        return serve_until_stopped(f"TensorBoard over {', '.join(n for n, _ in named)}", url)
    finally:
        shutil.rmtree(view, ignore_errors=True)  # the links only


ACTIONS = {
    "list": _runs_list,
    "show": _runs_show,
    "compare": _runs_compare,
    "tag": _runs_tag,
    "rm": _runs_rm,
    "sync": _runs_sync,
    "env": _runs_env,
    "tensorboard": _runs_tensorboard,
}


def cmd_runs(argv: list[str]) -> int:
    """``tensorweave runs ACTION ...``."""
    return dispatch(argv, "runs", ACTIONS, __doc__ or "")
