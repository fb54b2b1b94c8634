"""``tensorweave reproduce RUN`` and ``tensorweave runs env RUN [-o requirements.lock]``.

``reproduce`` rebuilds the environment a run recorded (``environment.json``) in a fresh
virtual environment, re-runs its config into a new run directory and prints a table of every
recorded figure; ``--bisect`` names the pack that moved a figure (``runs.reproduce``). Exit
codes: 0 every figure reproduced; 5 a figure moved beyond ``--tolerance``; 1 an environment
could not be built (a recorded version the index lacks) or the re-run failed; 2 a run that
cannot be reproduced (no ``environment.json``, ``config.json`` changed since it was
recorded, unfinished); 130 interrupted (what it made is removed or named).

``runs env`` prints a run's environment; ``-o FILE`` writes a pip-installable lock of it
(``runs.environment_report.lock_text``). The ``runs`` command is tensorweave-store's: its ``env``
action calls ``cmd_runs_env``.

>>> reproduce_parser().parse_args(["runs/x", "--find-links", "wheels", "--bisect"]).bisect
True
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tensorweave.cli.command import EXIT_OK, CommandParser, UsageError
from tensorweave_train.commands.arguments import base_parser

__all__ = ["cmd_reproduce", "cmd_runs_env", "reproduce_parser"]


def reproduce_parser() -> CommandParser:
    """The parser of ``tensorweave reproduce``."""
    p = base_parser(
        "reproduce",
        "RUN [--find-links DIR | --index-url URL] [--keep-env DIR] [--tolerance T] [--bisect]",
        "Rebuild the environment RUN recorded, re-run its config into a new run and compare "
        "every figure (exit 0 reproduced, 5 a figure moved, 1 build or re-run failed, 2 a run "
        "that cannot be reproduced, 130 interrupted).",
    )
    p.add_argument("run", nargs="?", help="a run directory (or NAME@VERSION with the store)")
    p.add_argument("--python", metavar="PATH", help="the Python of the new environment")
    source = p.add_mutually_exclusive_group()
    source.add_argument("--find-links", metavar="DIR", help="install wheels from DIR as well")
    source.add_argument("--index-url", metavar="URL", help="the package index to install from")
    p.add_argument(
        "--no-index", action="store_true", help="no package index: only --find-links DIR"
    )
    p.add_argument(
        "--keep-env", metavar="DIR", help="make (or reuse) the environment in DIR and keep it"
    )
    p.add_argument(
        "--tolerance",
        type=float,
        default=1e-6,
        metavar="T",
        help="a figure is reproduced within T (relative above 1; default 1e-6)",
    )
    p.add_argument(
        "--bisect",
        action="store_true",
        help="when a figure moved, re-run with each differing pack at its recorded version",
    )
    p.add_argument(
        "--share-unchanged",
        action="store_true",
        help="link the third-party distributions installed here at their recorded version "
        "instead of installing them (fast, offline; tensorweave packs are always installed)",
    )
    p.add_argument(
        "--here",
        action="store_true",
        help="re-run in this environment as it is (no new one): do today's versions still "
        "give the recorded figures?",
    )
    p.add_argument("--run-dir", help="where to write the new run (default RUN-reproduced-TIME)")
    return p


def cmd_reproduce(argv: list[str]) -> int:
    """``tensorweave reproduce``."""
    parser = reproduce_parser()
    args = parser.parse_args(argv)
    if args.help:
        parser.print_help()
        return EXIT_OK
    if args.run is None:
        raise UsageError("tensorweave reproduce: give the RUN directory to reproduce")
    if args.here and (args.keep_env or args.python):
        raise UsageError(
            "tensorweave reproduce: --here makes no environment: drop --keep-env/--python"
        )
    if args.no_index and not args.find_links:
        raise UsageError("tensorweave reproduce: --no-index needs --find-links DIR")
    if args.find_links and not Path(args.find_links).is_dir():
        raise UsageError(f"tensorweave reproduce: --find-links {args.find_links} is not a folder")
    from tensorweave_train.runs.reproduce import Source, report, reproduce

    outcome = reproduce(
        args.run,
        python=args.python,
        source=Source(args.find_links, args.index_url, args.no_index),
        keep_env=args.keep_env,
        tolerance=args.tolerance,
        bisect=args.bisect,
        share_unchanged=args.share_unchanged,
        here=args.here,
        run_dir=args.run_dir,
    )
    print(report(outcome, args.tolerance), flush=True)
    return outcome.exit_code


def runs_env_parser() -> CommandParser:
    """The parser of ``tensorweave runs env``."""
    p = CommandParser(
        prog="tensorweave runs env",
        description="A run's recorded environment; -o writes a pip-installable lock of it.",
    )
    p.add_argument("run", help="a run directory (or NAME@VERSION with the store)")
    p.add_argument("-o", "--output", metavar="FILE", help="write the lock (requirements.lock)")
    p.add_argument("--store", help=argparse.SUPPRESS)  # the store's option, unused here
    p.add_argument("--traceback", action="store_true", help="show the full traceback on errors")
    return p


def cmd_runs_env(argv: list[str]) -> int:
    """``tensorweave runs env RUN [-o FILE]``."""
    import sys

    from tensorweave_train.runs.directory import resolve_run
    from tensorweave_train.runs.environment import read_environment
    from tensorweave_train.runs.environment_report import lock_text, summary_text
    from tensorweave_train.runs.reproduce import NoEnvironmentError, no_environment_message

    args = runs_env_parser().parse_args(argv)
    run = resolve_run(args.run)
    record = read_environment(run)
    if record is None:
        if args.output:
            raise NoEnvironmentError(
                no_environment_message(run) + f" No lock written to {args.output}."
            )
        print(no_environment_message(run), file=sys.stderr)
        return EXIT_OK
    print(summary_text(record, source=str(run)))
    if args.output:
        Path(args.output).write_text(lock_text(record, source=str(run)), encoding="utf-8")
        print(f"wrote {args.output} (pip install -r {args.output})")
    return EXIT_OK
