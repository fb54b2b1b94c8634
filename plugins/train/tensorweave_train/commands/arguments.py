"""The arguments every command of the train pack shares, and how they are parsed.

Each command (this package's, and other packs' commands such as the store's sweep) starts
from ``base_parser`` (``--help``, ``--traceback``, and the options
plugins add through the ``tensorweave_train_arguments`` hook, e.g. ``--store URL``), or
from ``run_parser`` for a command on a trained run (``RUN_DIR``, checked by
``need_run_dir``). ``parse_command_line`` splits the command line into known options and the
``--section.key=VALUE`` config overrides, and hands the options to plugins
(``tensorweave_train_options``). The parser, the exit codes and the error handling are the
core's (``tensorweave.cli.command``).

>>> args, overrides = parse_command_line(["runs/x", "--train.epochs=2"], run_parser("evaluate", "..."))
>>> args.run_dir, overrides
('runs/x', ['--train.epochs=2'])
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import tensorweave as tw
from tensorweave.cli.command import EXIT_CODES, CommandParser, UsageError

__all__ = [
    "EPILOG",
    "base_parser",
    "need_run_dir",
    "parse_command_line",
    "plugin_hook",
    "run_parser",
]

EPILOG = "exit codes: " + "; ".join(f"{k} {v}" for k, v in EXIT_CODES.items())


def base_parser(name: str, usage: str, description: str) -> CommandParser:
    """The parser of ``tensorweave NAME``, with the options every command takes."""
    p = CommandParser(
        prog=f"tensorweave {name}",
        usage=f"tensorweave {name} {usage}",
        description=description,
        epilog=EPILOG,
        add_help=False,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("-h", "--help", action="store_true", help="show this help (and the config's)")
    p.add_argument("--traceback", action="store_true", help="show the full traceback on errors")
    plugin_hook("tensorweave_train_arguments", parser=p, command=name)  # e.g. --store URL
    return p


def plugin_hook(hook: str, **kw: Any) -> None:
    """Plugins' options (``hookspecs.tensorweave_train_arguments``/``_options``); a plugin
    that raises is skipped with a warning (``tw.plugins.call``)."""
    from tensorweave_train.hooks import ensure_hookspecs

    ensure_hookspecs()
    tw.plugins.call(hook, **kw)


def parse_command_line(
    argv: Sequence[str], parser: CommandParser
) -> tuple[argparse.Namespace, list[str]]:
    """Known options, and the ``--a.b=value`` overrides (anything else is a usage error)."""
    overrides = [a for a in argv if a.startswith("--") and "." in a.split("=", 1)[0]]
    rest = [a for a in argv if a not in overrides]
    args, unknown = parser.parse_known_args(rest)
    if unknown:
        raise UsageError(
            f"{parser.prog}: unrecognized arguments: {' '.join(unknown)}. Overrides look like "
            "--section.key=VALUE."
        )
    bad = [a for a in overrides if "=" not in a]
    if bad:
        raise UsageError(f"{parser.prog}: override {bad[0]} needs a value: {bad[0]}=VALUE")
    command = parser.prog.removeprefix("tensorweave ")
    plugin_hook("tensorweave_train_options", options=args, command=command)
    return args, overrides


def run_parser(name: str, description: str) -> CommandParser:
    """The parser of a command on a trained run: ``tensorweave NAME RUN_DIR ...``."""
    p = base_parser(name, "RUN_DIR [--section.key=VALUE ...] [options]", description)
    p.add_argument("run_dir", nargs="?", help="a run directory written by tensorweave train")
    return p


def need_run_dir(args: argparse.Namespace, parser: CommandParser) -> Path:
    """The run directory ``args.run_dir`` names (a directory, or ``NAME@VERSION`` through a
    plugin: ``runs.directory.resolve_run``); a usage error when it is missing or holds no run."""
    if args.run_dir is None:
        raise UsageError(f"{parser.prog}: give the RUN_DIR that `tensorweave train` printed")
    from tensorweave_train.runs.directory import resolve_run

    return resolve_run(args.run_dir)
