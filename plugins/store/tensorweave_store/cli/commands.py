"""The store's commands: ``tensorweave runs …``, ``tensorweave models …``,
``tensorweave datasets …``.

Added through the core hook ``tensorweave_add_commands``; light at import (SQLAlchemy and
TensorFlow load only when a command runs). Every command takes ``--store URL`` (default
``TENSORWEAVE_STORE``, else ``runs/tensorweave-store.db``)::

    tensorweave runs list [--where "val_accuracy>0.95"] [--tag T] [--status S] [--limit N]
                          [--built-with "tensorweave-layers<0.2"]
    tensorweave runs show RUN                    # RUN: id, run directory or name
    tensorweave runs compare RUN RUN [...] [-o curves.png]
    tensorweave runs tag RUN TAG [...]
    tensorweave runs rm RUN [...]
    tensorweave runs sync RUN [...]              # what a run kept while the store was away
    tensorweave runs env RUN [-o requirements.lock]  # its environment; -o: a pip lock
    tensorweave runs tensorboard [RUN...] [--port P] [--host H]  # TensorBoard over their logs
    tensorweave models register RUN NAME [--stage S] [--tag T]
    tensorweave models list [--built-with "tensorweave-layers<0.2"]
    tensorweave models show NAME[@VERSION] | stage NAME@VERSION STAGE | tag NAME@VERSION T
    tensorweave datasets list | show NAME[@VERSION]

Exit codes as ``tensorweave train``: 0 success, 1 failure (a store error, with its fix),
2 usage error.

>>> sorted(COMMANDS)
['datasets', 'models', 'runs']
>>> _parser("runs", "list").parse_args(["--where", "loss<1", "--tag", "a"]).where
['loss<1']
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import tensorweave as tw
from tensorweave.cli.command import CommandParser, UsageError, add_commands, run_guarded

__all__ = ["tensorweave_add_commands", "COMMANDS", "main"]


def _parser(command: str, action: str, description: str = "") -> CommandParser:
    p = CommandParser(prog=f"tensorweave {command} {action}", description=description)
    p.add_argument("--store", help="store URL (default: $TENSORWEAVE_STORE or the runs root's)")
    p.add_argument("--traceback", action="store_true", help="show the full traceback on errors")
    if command == "runs" and action == "list":
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
    if action == "list" and command in ("runs", "models"):
        p.add_argument(
            "--built-with",
            metavar="DIST SPECIFIER",
            help=f"only the {command} built with these versions of a pack (a component it "
            'provided), e.g. "tensorweave-layers<0.2"',
        )
    return p


def _store(args: argparse.Namespace) -> Any:
    from tensorweave_store.db.urls import select
    from tensorweave_store.store import open_store

    select(args.store)  # this command's --store (or none): as the train pack's commands do
    return open_store(args.store)


def _sub(argv: list[str], command: str, actions: dict[str, Callable[..., int]]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(f"usage: tensorweave {command} {{{','.join(actions)}}} ...\n")
        print((__doc__ or "").split("::", 1)[1].split("Exit codes")[0])
        return 0 if argv else 2
    action, rest = argv[0], argv[1:]
    if action not in actions:
        raise UsageError(
            f"tensorweave {command}: unknown action {action!r}; actions: {', '.join(actions)}"
        )
    return actions[action](rest)


# -- runs -------------------------------------------------------------------------------------
def _runs_list(argv: list[str]) -> int:
    from tensorweave_store.cli.report import runs_table
    from tensorweave_store.runs.filters import parse_built_with

    args = _parser("runs", "list", "List recorded runs, newest first.").parse_args(argv)
    built = parse_built_with(args.built_with) if args.built_with else None  # before the store
    store = _store(args)
    where = list(args.where) + [c if "=" in c else f"{c}=" for c in args.config]
    runs = store.runs(
        where=where,
        tags=args.tag,
        status=args.status,
        name=args.name,
        limit=None if built else args.limit,
    )
    if built is not None:
        runs = [r for r in runs if built.holds(r.providers, r.versions)][: args.limit or None]
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

    p = _parser("runs", "show", "Show one run: config providers, versions, curves, files.")
    p.add_argument("run", help="run id, run directory or name")
    args = p.parse_args(argv)
    store = _store(args)
    run = store.run(args.run)
    print(redact(show_run(run, store.metrics(run.id), store.artifacts(run.id))))
    return 0


def _runs_compare(argv: list[str]) -> int:
    from tensorweave_store.cli.report import compare_text, plot_compare
    from tensorweave_store.db.urls import redact

    p = _parser("runs", "compare", "Config differences and metric curves, side by side.")
    p.add_argument("runs", nargs="+", help="two or more runs (id, directory or name)")
    p.add_argument("-o", "--output", help="also draw the curves (.png, .svg or .pdf)")
    args = p.parse_args(argv)
    if len(args.runs) < 2:
        raise UsageError("tensorweave runs compare: give at least two runs")
    store = _store(args)
    runs = [store.run(r) for r in args.runs]
    metrics = [store.metrics(r.id) for r in runs]
    print(redact(compare_text(runs, metrics)))
    if args.output:
        print(f"\nwrote {plot_compare(runs, metrics, args.output)}")
    return 0


def _runs_tag(argv: list[str]) -> int:
    p = _parser("runs", "tag", "Add tags to a run.")
    p.add_argument("run")
    p.add_argument("tags", nargs="+")
    args = p.parse_args(argv)
    store = _store(args)
    store.tag_run(args.run, args.tags)
    print(f"run {store.run(args.run).id}: tags {', '.join(store.run(args.run).tags)}")
    return 0


def _runs_rm(argv: list[str]) -> int:
    p = _parser("runs", "rm", "Delete runs' records (run directories and blobs stay).")
    p.add_argument("runs", nargs="+")
    args = p.parse_args(argv)
    store = _store(args)
    for ref in args.runs:
        run = store.delete_run(ref)
        print(f"removed run {run.id} ({run.name}); its directory {run.run_dir} is untouched")
    return 0


def _runs_sync(argv: list[str]) -> int:
    p = _parser("runs", "sync", "Record what runs kept while the store was out of reach.")
    p.add_argument("runs", nargs="+", help="run directory, id or name")
    args = p.parse_args(argv)
    store = _store(args)
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

    p = _parser("runs", "tensorboard", "TensorBoard over runs' logs, each under its name.")
    p.add_argument("runs", nargs="*", help="run directories, ids or names (default: every run)")
    p.add_argument("--port", type=int, default=6006, help="port to serve on (default 6006)")
    p.add_argument("--host", default="127.0.0.1", help="address to serve on (default 127.0.0.1)")
    args = p.parse_args(argv)
    named = board_runs(args.runs, lambda: _store(args))
    view = Path(tempfile.mkdtemp(prefix="tensorweave-board-"))  # links to the runs
    try:
        url = start_tensorboard(board_view(named, view), args.host, args.port)
        return serve_until_stopped(f"TensorBoard over {', '.join(n for n, _ in named)}", url)
    finally:
        shutil.rmtree(view, ignore_errors=True)  # the links only


def _cmd_runs(argv: list[str]) -> int:
    return _sub(
        argv,
        "runs",
        {
            "list": _runs_list,
            "show": _runs_show,
            "compare": _runs_compare,
            "tag": _runs_tag,
            "rm": _runs_rm,
            "sync": _runs_sync,
            "env": _runs_env,
            "tensorboard": _runs_tensorboard,
        },
    )


# -- models -----------------------------------------------------------------------------------
def _models_register(argv: list[str]) -> int:
    p = _parser("models", "register", "Store a run's model as the next version of NAME.")
    p.add_argument("run", help="run id, run directory or name")
    p.add_argument("name", help="the model's name")
    p.add_argument("--stage", help="put the new version in this stage (e.g. production)")
    p.add_argument("--tag", action="append", default=[])
    p.add_argument("--description")
    args = p.parse_args(argv)
    mv = _store(args).register_model(
        args.run, args.name, stage=args.stage, tags=args.tag, description=args.description
    )
    print(
        f"registered {mv.ref} from run {mv.run_id} ({len(mv.manifest)} files)"
        + (f", stage {mv.stage}" if mv.stage else "")
        + f"\n  next: tensorweave predict {mv.ref} --input FILE"
    )
    return 0


def _models_list(argv: list[str]) -> int:
    from tensorweave_store.cli.report import table
    from tensorweave_store.runs.filters import parse_built_with

    args = _parser("models", "list", "Every model name and its versions.").parse_args(argv)
    built = parse_built_with(args.built_with) if args.built_with else None  # before the store
    store = _store(args)
    if built is not None:
        return _models_built_with(store, built)
    rows = []
    for name, versions in store.models():
        stages = ", ".join(f"{v.stage}={v.version}" for v in versions if v.stage) or "-"
        last = versions[-1] if versions else None
        figs = (last.provenance.get("figures") or {}) if last else {}
        acc = next((figs[k] for k in ("val_accuracy", "val_loss") if k in figs), None)
        rows.append(
            [
                name,
                len(versions),
                last.version if last else "-",
                stages,
                last.provenance.get("run_id") if last else "-",
                acc,
            ]
        )
    if not rows:
        print(
            f"no models in {store.display_url}; register one: tensorweave models register RUN NAME"
        )
        return 0
    print(
        table(
            rows,
            [
                "name",
                "versions",
                "latest",
                "stages",
                "latest from run",
                "latest val_accuracy/val_loss",
            ],
        )
    )
    return 0


def _models_built_with(store: Any, built: Any) -> int:
    """``models list --built-with``: every version built with the range, one per row."""
    from tensorweave_store.cli.report import table
    from tensorweave_store.versions.models import versions_built_with

    found = versions_built_with(store, built)
    if not found:
        print(f"no model version in {store.display_url} was built with {built}")
        return 0
    rows = [
        [mv.ref, mv.stage or "-", mv.run_id if mv.run_id is not None else "-", ", ".join(m)]
        for mv, m in found
    ]
    print(table(rows, ["model", "stage", "from run", "built with"]))
    return 0


def _models_show(argv: list[str]) -> int:
    from tensorweave_store.cli.report import fmt, table, utc_text

    p = _parser("models", "show", "A model's versions, or one version in full.")
    p.add_argument("ref", help="NAME or NAME@VERSION")
    args = p.parse_args(argv)
    store = _store(args)
    if "@" not in args.ref:
        store.model_version(f"{args.ref}@latest")  # ModelNotFoundError with the fix
        versions = dict(store.models())[args.ref]
        print(
            table(
                [
                    [
                        v.version,
                        v.stage or "-",
                        ",".join(v.tags) or "-",
                        v.run_id,
                        utc_text(v.created_at),
                    ]
                    for v in versions
                ],
                ["version", "stage", "tags", "run", "registered (UTC)"],
            )
        )
        return 0
    mv = store.model_version(args.ref)
    prov = mv.provenance
    print(f"{mv.ref}  stage {mv.stage or '-'}  tags {', '.join(mv.tags) or '-'}")
    print(
        f"  from run {prov.get('run_id')} ({prov.get('run_name')}, {prov.get('run_status')}) "
        f"in {prov.get('run_dir')}"
    )
    print(f"  registered {utc_text(mv.created_at)} UTC by {prov.get('registered_by')}")
    figs = prov.get("figures") or {}
    print("  figures: " + "  ".join(f"{k} {fmt(v)}" for k, v in sorted(figs.items())))
    for path, sha in sorted(mv.manifest.items()):
        print(f"  {path}  sha256:{sha[:16]}…")
    return 0


def _models_stage(argv: list[str]) -> int:
    p = _parser("models", "stage", "Put a version in a stage (production, staging…).")
    p.add_argument("ref", help="NAME@VERSION")
    p.add_argument("stage", help="the stage, or 'none' to clear")
    args = p.parse_args(argv)
    mv = _store(args).set_stage(args.ref, None if args.stage == "none" else args.stage)
    print(f"{mv.ref}: stage {mv.stage or '-'}")
    return 0


def _models_tag(argv: list[str]) -> int:
    p = _parser("models", "tag", "Add tags to a model version.")
    p.add_argument("ref", help="NAME@VERSION")
    p.add_argument("tags", nargs="+")
    args = p.parse_args(argv)
    mv = _store(args).tag_model(args.ref, args.tags)
    print(f"{mv.ref}: tags {', '.join(mv.tags)}")
    return 0


def _cmd_models(argv: list[str]) -> int:
    return _sub(
        argv,
        "models",
        {
            "register": _models_register,
            "list": _models_list,
            "show": _models_show,
            "stage": _models_stage,
            "tag": _models_tag,
        },
    )


# -- datasets ---------------------------------------------------------------------------------
def _datasets_list(argv: list[str]) -> int:
    from tensorweave_store.cli.report import table

    args = _parser("datasets", "list", "Registered datasets and versions.").parse_args(argv)
    store = _store(args)
    from tensorweave_store.datasets import versions as datasets

    rows = [
        [d.ref, d.kind, d.size, (d.content_hash or "-")[:16], d.describe()]
        for d in datasets.list_datasets(store)
    ]
    if not rows:
        print(f"no datasets in {store.display_url}")
        return 0
    print(table(rows, ["dataset", "kind", "examples", "content sha256", "what"]))
    return 0


def _datasets_show(argv: list[str]) -> int:
    import json

    p = _parser("datasets", "show", "One dataset version.")
    p.add_argument("ref", help="NAME or NAME@VERSION")
    args = p.parse_args(argv)
    from tensorweave_store.datasets import versions as datasets

    d = datasets.get_dataset(_store(args), args.ref)
    print(f"{d.ref}  {d.kind}  {d.size} examples  sha256 {d.content_hash or '-'}")
    print(f"  {d.describe()}")
    print("  info: " + json.dumps(d.info, default=str)[:400])
    return 0


def _cmd_datasets(argv: list[str]) -> int:
    return _sub(argv, "datasets", {"list": _datasets_list, "show": _datasets_show})


COMMANDS: dict[str, tuple[Callable[[list[str]], int], str]] = {
    "runs": (_cmd_runs, "list, show, compare, tag and remove recorded runs (tensorweave-store)"),
    "models": (_cmd_models, "register, list, show and stage model versions (tensorweave-store)"),
    "datasets": (_cmd_datasets, "list and show stored datasets (tensorweave-store)"),
}


@tw.hookimpl
def tensorweave_add_commands(subparsers: Any) -> None:
    """Add ``runs``, ``models`` and ``datasets`` to ``tensorweave``."""
    add_commands(subparsers, COMMANDS)


def main(argv: list[str] | None = None) -> int:
    """``python -m tensorweave_store.cli.commands runs list``: the commands without the CLI."""
    import sys

    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in COMMANDS:
        print(f"usage: python -m tensorweave_store.cli.commands {{{','.join(COMMANDS)}}} ...")
        return 2
    return run_guarded(COMMANDS[argv[0]][0], argv[1:])


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
