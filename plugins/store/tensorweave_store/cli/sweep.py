"""The workflow commands: ``tensorweave sweep``, ``tensorweave sweep show`` and ``tensorweave cv``.

Added through the core hook ``tensorweave_add_commands`` (a ``tensorweave.plugins`` entry
point of this pack)::

    tensorweave sweep digits --param optimizer.learning_rate=loguniform(1e-4,1e-1) \\
        --param dims.hidden=choice(32,64,128) --trials 8 --workers 2 --train.epochs=3
    tensorweave sweep show STUDY -o sweep.png      # the best trials, and a plot
    tensorweave sweep dashboard [--port 8080]      # optuna-dashboard over the store's sweeps
    tensorweave cv digits --folds 5 --train.epochs=3   # mean ± spread over 5 folds

Run the same ``sweep`` command on another machine with the same ``--store URL`` (or
``TENSORWEAVE_STORE``) and its workers join the study. Exit codes are every command's
(0 success, 1 failure while running, 2 usage error, 3 unknown component, 4 invalid config).

>>> _sweep_parser().parse_args(["digits", "--trials", "4"]).trials
4
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import tensorweave as tw
from tensorweave.cli.command import CommandParser, UsageError, add_commands

__all__ = ["tensorweave_add_commands", "COMMANDS"]


def _parser(name: str, usage: str, description: str) -> CommandParser:
    p = CommandParser(
        prog=f"tensorweave {name}",
        usage=f"tensorweave {name} {usage}",
        description=description,
        add_help=False,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("-h", "--help", action="store_true", help="show this help")
    p.add_argument("--traceback", action="store_true", help="show the full traceback on errors")
    p.add_argument(
        "--store",
        help="the store's database URL (default TENSORWEAVE_STORE or "
        "the SQLite file under the runs root)",
    )
    return p


def _sweep_parser() -> CommandParser:
    p = _parser(
        "sweep",
        "[CONFIG] --param PATH=DIST [--param ...] [--trials N] [--workers K] "
        "[--section.key=VALUE ...]\n       tensorweave sweep show STUDY [-o plot.png]\n"
        "       tensorweave sweep dashboard [--store URL] [--port P] [--host H]",
        "Search config values with Optuna; the study lives in the store's database.\n"
        "DIST: uniform(LO,HI[,STEP]) loguniform(LO,HI) int(LO,HI[,STEP]) logint(LO,HI) "
        "choice(A,B,...).",
    )
    p.add_argument("config", nargs="?", help="config file or built-in name (default digits)")
    p.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="PATH=DIST",
        help="a config value to search, e.g. optimizer.learning_rate=loguniform(1e-4,1e-1)",
    )
    p.add_argument("--trials", type=int, default=20, help="trials the study holds (20)")
    p.add_argument("--workers", type=int, default=1, help="worker processes here (1)")
    p.add_argument("--study", help="study name (default: made from the command)")
    p.add_argument("--metric", help="validation value to optimise (default the first metric)")
    p.add_argument("--direction", choices=["minimize", "maximize"])
    p.add_argument(
        "--pruner",
        choices=["median", "none"],
        default="median",
        help="stop trials whose epoch values fall below the median of earlier ones (median)",
    )
    p.add_argument("--heartbeat", type=float, default=5.0, help="seconds between beats (5)")
    p.add_argument("--max-retry", type=int, default=2, help="retries of a killed trial (2)")
    p.add_argument(
        "--store-wait",
        type=float,
        default=3600.0,
        metavar="SECONDS",
        help="how long a worker waits, paused, for a lost database before it stops (3600)",
    )
    return p


def _show_parser() -> CommandParser:
    p = _parser("sweep show", "STUDY [-o plot.png] [--top N]", "The best trials of a sweep.")
    p.add_argument("study", nargs="?", help="the study name `tensorweave sweep` printed")
    p.add_argument("-o", "--output", help="the plot (.png, .svg, .pdf; default STUDY.png)")
    p.add_argument("--top", type=int, default=5, help="how many best trials to list (5)")
    return p


def _dashboard_parser() -> CommandParser:
    p = _parser(
        "sweep dashboard",
        "[--store URL] [--port 8080] [--host 127.0.0.1]",
        "optuna-dashboard over the store's sweeps (the same database), each trial's note "
        "naming its tensorweave run.",
    )
    p.add_argument("--port", type=int, default=8080, help="port to serve on (8080)")
    p.add_argument("--host", default="127.0.0.1", help="address to serve on (127.0.0.1)")
    return p


def _cv_parser() -> CommandParser:
    p = _parser(
        "cv",
        "[CONFIG] --folds K [--section.key=VALUE ...]",
        "Cross-validate: train CONFIG on K folds of its data (train and valid joined) and "
        "report each validation figure as mean ± standard deviation.",
    )
    p.add_argument("config", nargs="?", help="config file or built-in name (default digits)")
    p.add_argument("--folds", type=int, default=5, help="number of folds (5)")
    p.add_argument("--seed", type=int, default=0, help="seed of the fold assignment (0)")
    p.add_argument("--run-dir", help="where the fold runs go (default runs/NAME-cv-TIME)")
    return p


def _split(argv: list[str], parser: CommandParser) -> tuple[argparse.Namespace, list[str]]:
    from tensorweave_train import parse_command_line

    found: tuple[argparse.Namespace, list[str]] = parse_command_line(argv, cast(Any, parser))
    return found


def _cmd_sweep(argv: list[str]) -> int:
    if argv[:1] == ["show"]:
        return _cmd_show(argv[1:])
    if argv[:1] == ["dashboard"]:
        return _cmd_dashboard(argv[1:])
    from tensorweave_store.sweeps import workers as sweep

    parser = _sweep_parser()
    args, overrides = _split(argv, parser)
    if args.help:
        parser.print_help()
        return 0
    if not args.param:
        raise UsageError("tensorweave sweep: give at least one --param PATH=DIST")
    try:
        for p in args.param:
            sweep.parse_param(p)
    except sweep.SweepError as err:
        raise UsageError(f"tensorweave sweep: {err}") from err
    if args.trials < 1 or args.workers < 1:
        raise UsageError("tensorweave sweep: --trials and --workers must be at least 1")
    spec = sweep.SweepSpec(
        config=args.config,
        params=list(args.param),
        trials=args.trials,
        workers=args.workers,
        overrides=list(overrides),
        metric=args.metric,
        direction=args.direction,
        study=args.study,
        store=args.store,
        heartbeat=args.heartbeat,
        max_retry=args.max_retry,
        pruner=args.pruner,
        store_wait=args.store_wait,
    )
    spec.study_name()  # --study NAME is a folder under the runs root: BadNameError (exit 2)
    try:
        sweep.check_params(spec)  # every --param path is in the config: before any trial
    except sweep.SweepError as err:
        raise UsageError(f"tensorweave sweep: {err}") from err
    try:
        study = sweep.run_sweep(spec)
    except KeyboardInterrupt:
        print(
            "interrupted: the study keeps its trials and queued a retry of the interrupted "
            "ones; run the same command again to continue.",
            file=sys.stderr,
        )
        return 130
    from tensorweave_store.sweeps.show import summary_text

    print(summary_text(study, top=3))
    print(f"  next: tensorweave sweep show {study.study_name} -o {study.study_name}.png")
    return 0


def _cmd_show(argv: list[str]) -> int:
    from tensorweave_store.sweeps import workers as sweep
    from tensorweave_store.sweeps.show import plot_study, summary_text

    parser = _show_parser()
    args, _ = _split(argv, parser)
    if args.help:
        parser.print_help()
        return 0
    if not args.study:
        raise UsageError("tensorweave sweep show: give the STUDY name `tensorweave sweep` printed")
    spec = sweep.SweepSpec(config=None, params=[], store=args.store)
    study = sweep.load_study(args.study, spec)
    print(summary_text(study, top=args.top))
    out = plot_study(study, args.output or f"{args.study}.png")
    if out is not None:
        print(f"wrote {out}")
    return 0


def _cmd_dashboard(argv: list[str]) -> int:
    from tensorweave_store.cli.boards import link_trials, serve_until_stopped, start_dashboard
    from tensorweave_store.db.urls import redact
    from tensorweave_store.sweeps import workers as sweep

    parser = _dashboard_parser()
    args, _ = _split(argv, parser)
    if args.help:
        parser.print_help()
        return 0
    spec = sweep.SweepSpec(config=None, params=[], store=args.store)
    storage = sweep.storage(spec)  # the sweeps' own Optuna storage: no copy

    def run_name(trial: Any) -> str | None:
        config = Path(str(trial.user_attrs["run_dir"])) / "config.json"
        try:
            return str(json.loads(config.read_text(encoding="utf-8"))["run"]["name"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    linked = link_trials(storage, run_name)
    url, stop = start_dashboard(storage, args.host, args.port)
    if linked:
        print(f"linked {linked} trial(s) to their runs (their dashboard notes)")
    try:
        return serve_until_stopped(f"optuna-dashboard over {redact(spec.url())}", url)
    finally:
        stop()


def _cmd_cv(argv: list[str]) -> int:
    from tensorweave_store.sweeps import folds

    parser = _cv_parser()
    args, overrides = _split(argv, parser)
    if args.help:
        parser.print_help()
        return 0
    if args.folds < 2:
        raise UsageError("tensorweave cv: --folds must be at least 2")
    # --store: parse (the train pack's) handed it to this pack's tensorweave_train_options
    result = folds.cross_validate(
        args.config, args.folds, overrides, seed=args.seed, run_dir=args.run_dir
    )
    print(folds.summary_text(result))
    print(json.dumps({"folds": args.folds, "mean": result["mean"], "std": result["std"]}))
    return 0


COMMANDS: dict[str, tuple[Callable[[list[str]], int], str]] = {
    "sweep": (
        _cmd_sweep,
        "search hyper-parameters with Optuna (sweep show STUDY: results; sweep dashboard)",
    ),
    "cv": (_cmd_cv, "cross-validate a config over K folds (mean ± spread)"),
}


@tw.hookimpl
def tensorweave_add_commands(subparsers: Any) -> None:
    """Add ``sweep`` and ``cv`` to ``tensorweave``."""
    add_commands(subparsers, COMMANDS)
