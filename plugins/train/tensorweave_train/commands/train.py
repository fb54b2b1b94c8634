"""``tensorweave train [CONFIG]`` and ``tensorweave resume RUN``: train a job into a run.

``train`` reads a built-in job (the ``jobs`` kind: ``digits``, ``chars``, ``dcgan`` and any
pack's, e.g. tensorweave-models' ``transformer-chars``) or a file with ``--section.key=VALUE``
overrides, optionally warm-started from a trained run (``--warm-start RUN|NAME@VERSION``
with ``--include``/``--exclude``/``--rename``); ``train CONFIG --help`` lists the
parameters of the components the config selects. ``resume`` continues a run from its
newest valid checkpoint (``--train.epochs=N`` is the new total). A config writes only in
its run directory: its output paths (``CSVLogger.v1``'s ``filename``...) are relative to
it, and one that is absolute or leaves it is refused (exit 4, with its dotted path) unless
the command line says ``--allow-paths-outside``.

On several workers (``--train.strategy=multi_worker``) each worker runs ``train`` with the
cluster, ``--workers HOST:PORT,HOST:PORT --task N`` (which writes ``TF_CONFIG``), or
``TF_CONFIG`` itself. A worker that loses another one (it stopped, crashed or restarted)
restarts itself with the same command (``--max-restarts``, default 3) and waits for the
cluster to form again: a worker killed mid-epoch and started again continues, with the
others, from the last checkpoint.

>>> parser = train_parser()
>>> parser.parse_args(["digits", "--quiet"]).quiet
True
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any

from tensorweave.cli.command import EXIT_OK, CommandParser, UsageError
from tensorweave_train.commands.arguments import (
    base_parser,
    need_run_dir,
    parse_command_line,
    run_parser,
)

__all__ = ["RESTARTS_ENV", "train_parser", "cmd_train", "cmd_resume", "print_summary"]

RESTARTS_ENV = "TENSORWEAVE_WORKER_RESTARTS"  # how often this worker restarted itself


def train_parser() -> CommandParser:
    """The parser of ``tensorweave train`` (its help lists the installed built-in jobs)."""
    from tensorweave_train.runs.job import DEFAULT_JOB, job_names

    jobs = ", ".join(f"{n} (default)" if n == DEFAULT_JOB else n for n in job_names())
    p = base_parser(
        "train",
        "[CONFIG] [--section.key=VALUE ...] [options]",
        f"Train the model CONFIG describes (a file, or a built-in job: {jobs}).",
    )
    p.add_argument("config", nargs="?", help="config file or built-in job's name")
    p.add_argument("--run-dir", help="where to write the run (default runs/NAME-TIME)")
    p.add_argument("--overwrite", action="store_true", help="replace the run already in --run-dir")
    _allow_paths_outside(p)
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
    cluster = p.add_argument_group(
        "several workers (--train.strategy=multi_worker or parameter_server; "
        "see docs/distributed.md); these write TF_CONFIG"
    )
    cluster.add_argument(
        "--workers", metavar="HOST:PORT,...", help="every worker, in order (worker 0 is the chief)"
    )
    cluster.add_argument(
        "--task", metavar="N|TYPE:N", help="this process: worker N (from 0), or chief, ps:N"
    )
    cluster.add_argument("--ps", metavar="HOST:PORT,...", help="parameter_server: the ps tasks")
    cluster.add_argument("--chief", metavar="HOST:PORT", help="parameter_server: the coordinator")
    cluster.add_argument(
        "--max-restarts",
        type=int,
        default=3,
        metavar="N",
        help="restart this worker up to N times when it loses another worker (default 3)",
    )
    cluster.add_argument(
        "--cluster-timeout",
        metavar="SECONDS",
        help="give up (exit 75, naming the missing peers) when the cluster has not formed "
        "after SECONDS (default 300)",
    )
    return p


def _allow_paths_outside(p: CommandParser) -> None:
    p.add_argument(
        "--allow-paths-outside",
        action="store_true",
        help="let the config's output paths (CSVLogger.v1 filename, TensorBoard.v1 log_dir, "
        "Checkpoint.v1 directory...) be absolute or leave the run directory; a config "
        "alone cannot allow it",
    )


def _join_cluster(args: argparse.Namespace, cfg: dict[str, Any]) -> bool:
    """Write ``TF_CONFIG`` from ``--workers``/``--task`` (``--ps``, ``--chief``); whether
    this process trains in a cluster (those options, or ``TF_CONFIG`` itself)."""
    from tensorweave_train.runs.cluster.forming import CLUSTER_TIMEOUT_ENV, cluster_timeout
    from tensorweave_train.runs.cluster.spec import Cluster, cluster_config

    strategy = str((cfg.get("train") or {}).get("strategy", "default"))
    clustered = strategy in ("multi_worker", "parameter_server")
    if args.cluster_timeout is not None:  # written for the strategy, as TF_CONFIG is
        os.environ[CLUSTER_TIMEOUT_ENV] = str(cluster_timeout(args.cluster_timeout))
    given = [f"--{n}" for n in ("workers", "task", "ps", "chief") if getattr(args, n)]
    if not given:
        return clustered and Cluster.from_env() is not None  # TF_CONFIG checked now
    if not clustered:
        raise UsageError(
            f"tensorweave train: {', '.join(given)} describe a cluster, but the strategy is "
            f"{strategy!r}. Fix: add --train.strategy=multi_worker (or parameter_server)."
        )
    if args.workers is None or args.task is None:
        raise UsageError(
            "tensorweave train: a cluster needs both --workers HOST:PORT,... and --task N."
        )
    config = cluster_config(args.workers, args.task, ps=args.ps or (), chief=args.chief)
    Cluster.of(config, source="--workers").export()
    return True


def _restart_if_lost(error: BaseException, args: argparse.Namespace) -> None:
    """Restart this process with the same command (it never returns) when ``error`` says
    another worker was lost and restarts are left; else return."""
    from tensorweave_train.runs.strategy import peer_failure

    lost = peer_failure(error)
    done = int(os.environ.get(RESTARTS_ENV, "0") or 0)
    if lost is None or done >= args.max_restarts:
        return
    os.environ[RESTARTS_ENV] = str(done + 1)
    print(
        f"tensorweave train: lost {lost} ({type(error).__name__}); restarting this worker "
        f"({done + 1} of at most {args.max_restarts}): training continues from the last "
        "checkpoint once every worker is back.",
        file=sys.stderr,
        flush=True,
    )
    sys.stdout.flush()
    os.execv(sys.executable, [sys.executable, *sys.orig_argv[1:]])


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
    from tensorweave_train.runs.job import config_path, load_config
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
    clustered = _join_cluster(args, cfg)
    try:
        summary = train_job(
            cfg,
            run_dir=args.run_dir,
            source=config_path(args.config),
            progress=args.progress,
            out=_out(args),
            overwrite=args.overwrite,
            paths_outside=args.allow_paths_outside,
        )
    except Exception as err:
        if clustered:
            _restart_if_lost(err, args)
        raise
    print_summary(summary)
    return EXIT_OK


def print_summary(summary: dict[str, Any]) -> None:
    """The last lines of ``train`` and ``resume``: figures, the run directory, what next
    (and, on several devices or workers, the strategy and the weights' checksum)."""
    if "served" in summary:
        print(f"{summary['served']}: served the chief for {summary['seconds']:.1f}s")
        return
    values = "  ".join(f"{k} {v:.4f}" for k, v in summary["valid"].items()) or "none (no data)"
    run = summary["run_dir"]
    print(
        f"done in {summary['train_seconds']:.1f}s: {summary['epochs']} epochs, "
        f"{summary['steps']} steps on {summary['train_examples']} examples\n"
        f"  validation: {values}\n  run directory: {run}\n"
        f"  next: tensorweave evaluate {run} | tensorweave plot {run} -o curves.svg | "
        f"tensorweave resume {run} --train.epochs=N"
    )
    if summary.get("strategy", "default") != "default":
        workers = summary.get("workers")
        on = f" on {len(workers)} workers, chief {summary['chief']}" if workers else ""
        print(
            f"  strategy {summary['strategy']}: {summary['replicas']} replicas{on}; weights "
            f"sha256:{summary['weights_sha256']}"
        )


def cmd_resume(argv: list[str]) -> int:
    """``tensorweave resume``."""
    from tensorweave_train.runs.resuming import resume_job

    parser = run_parser("resume", "Continue a run from its newest valid checkpoint.")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--progress", action="store_true", default=None)
    _allow_paths_outside(parser)
    args, overrides = parse_command_line(argv, parser)
    if args.help:
        parser.print_help()
        return EXIT_OK
    summary = resume_job(
        need_run_dir(args, parser),
        overrides,
        progress=args.progress,
        out=_out(args),
        paths_outside=args.allow_paths_outside,
    )
    print_summary(summary)
    return EXIT_OK
