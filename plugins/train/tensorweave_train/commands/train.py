"""``tensorweave train [CONFIG]`` and ``tensorweave resume RUN``: train a job into a run.

``train`` reads a built-in (``digits``, ``chars``, ``dcgan``) or a file with ``--section.key=VALUE``
overrides, optionally warm-started from a trained run (``--warm-start RUN|NAME@VERSION``
with ``--include``/``--exclude``/``--rename``); ``train CONFIG --help`` lists the
parameters of the components the config selects. ``resume`` continues a run from its
newest valid checkpoint (``--train.epochs=N`` is the new total).

>>> parser = train_parser()
>>> parser.parse_args(["digits", "--quiet"]).quiet
True
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from tensorweave.cli.command import EXIT_OK, CommandParser, UsageError
from tensorweave_train.commands.arguments import (
    base_parser,
    need_run_dir,
    parse_command_line,
    run_parser,
)

__all__ = ["train_parser", "cmd_train", "cmd_resume", "print_summary"]


def train_parser() -> CommandParser:
    """The parser of ``tensorweave train``."""
    p = base_parser(
        "train",
        "[CONFIG] [--section.key=VALUE ...] [options]",
        "Train the model CONFIG describes (a file, or a built-in: digits (default), chars, dcgan).",
    )
    p.add_argument("config", nargs="?", help="config file or built-in name")
    p.add_argument("--run-dir", help="where to write the run (default runs/NAME-TIME)")
    p.add_argument("--overwrite", action="store_true", help="replace the run already in --run-dir")
    p.add_argument(
        "--quiet", action="store_true", help="print only the final summary (and a stop's reason)"
    )
    p.add_argument("--progress", action="store_true", default=None, help="force progress bars")
    group = p.add_argument_group("warm start (load weights of a trained run first)")
    group.add_argument("--warm-start", metavar="RUN|NAME@VERSION", help="the run to load from")
    group.add_argument(
        "--include", action="append", default=[], metavar="PATTERN", help="load only these (glob)"
    )
    group.add_argument(
        "--exclude", action="append", default=[], metavar="PATTERN", help="do not load these"
    )
    group.add_argument(
        "--rename",
        action="append",
        default=[],
        metavar="OLD=NEW",
        help="the source's names with OLD load into names with NEW",
    )
    return p


def _with_warm_start(cfg: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    """``cfg`` with the ``WarmStart.v1`` callback ``--warm-start`` asks for."""
    from tensorweave_train.runs import warm_start  # the module
    from tensorweave_train.runs.directory import resolve_run

    if args.warm_start is None:
        if args.include or args.exclude or args.rename:
            raise UsageError("tensorweave train: --include/--exclude/--rename need --warm-start")
        return cfg
    resolve_run(args.warm_start)  # a missing source fails now, before a run directory is made
    try:
        with_cb = warm_start.add_to_config(
            cfg,
            args.warm_start,
            include=args.include,
            exclude=args.exclude,
            rename=args.rename,
            quiet=bool(args.quiet),
        )
    except ValueError as err:
        raise UsageError(f"tensorweave train: {err}") from err
    if not args.help:  # nothing would load: say so before anything is made
        warm_start.check(
            cfg, args.warm_start, include=args.include, exclude=args.exclude, rename=args.rename
        )
    return with_cb


def _out(args: argparse.Namespace) -> Callable[[str], None] | None:
    return None if getattr(args, "quiet", False) else print


def cmd_train(argv: list[str]) -> int:
    """``tensorweave train``."""
    from tensorweave_train.runs.config import config_path, load_config
    from tensorweave_train.runs.training import train_job

    parser = train_parser()
    args, overrides = parse_command_line(argv, parser)
    cfg = _with_warm_start(load_config(args.config, overrides), args)
    if args.help:
        from tensorweave_train.commands.config_help import config_help

        parser.print_help()
        print(
            f"\nparameters of {config_path(args.config).name} (override any with --path=VALUE):\n"
        )
        print(config_help(cfg))
        return EXIT_OK
    summary = train_job(
        cfg,
        run_dir=args.run_dir,
        source=config_path(args.config),
        progress=args.progress,
        out=_out(args),
        overwrite=args.overwrite,
    )
    print_summary(summary)
    return EXIT_OK


def print_summary(summary: dict[str, Any]) -> None:
    """The last lines of ``train`` and ``resume``: figures, the run directory, what next."""
    values = "  ".join(f"{k} {v:.4f}" for k, v in summary["valid"].items())
    run = summary["run_dir"]
    print(
        f"done in {summary['train_seconds']:.1f}s: {summary['epochs']} epochs, "
        f"{summary['steps']} steps on {summary['train_examples']} examples\n"
        f"  validation: {values}\n  run directory: {run}\n"
        f"  next: tensorweave evaluate {run} | tensorweave plot {run} -o curves.svg | "
        f"tensorweave resume {run} --train.epochs=N"
    )


def cmd_resume(argv: list[str]) -> int:
    """``tensorweave resume``."""
    from tensorweave_train.runs.training import resume_job

    parser = run_parser("resume", "Continue a run from its newest valid checkpoint.")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--progress", action="store_true", default=None)
    args, overrides = parse_command_line(argv, parser)
    if args.help:
        parser.print_help()
        return EXIT_OK
    summary = resume_job(
        need_run_dir(args, parser), overrides, progress=args.progress, out=_out(args)
    )
    print_summary(summary)
    return EXIT_OK
