"""The job's commands: ``tensorweave train|evaluate|predict|resume|plot|draw``.

Added to the ``tensorweave`` command line through the core hook
``tensorweave_add_commands`` (this module is a ``tensorweave.plugins`` entry point).
Each command takes ``--section.key=VALUE`` overrides of its config, typed as TOML values::

    tensorweave train                                  # the built-in digits classifier
    tensorweave train chars --train.epochs=2           # the char-LSTM, shorter
    tensorweave train my.toml --optimizer.@optimizers=SGD.v1 --optimizer.momentum=0.9
    tensorweave train my.toml --help                   # the parameters my.toml selects
    tensorweave evaluate RUN_DIR
    tensorweave predict RUN_DIR --input digits.npy     # or --text "def " --generate 40
    tensorweave resume RUN_DIR --train.epochs=40
    tensorweave plot RUN_DIR -o curves.svg             # .png/.pdf need matplotlib
    tensorweave draw my.toml -o graph.svg              # .png needs Graphviz

Exit codes: 0 success; 1 failure while running (training, I/O, a processor, NaN);
2 usage error (bad option, missing file or run directory, a run directory in use or
holding a run without ``--overwrite``, input ``predict`` cannot take); 3 unknown or
unloadable component; 4 invalid config (every problem is listed with its dotted path);
130 interrupted (a checkpoint is saved and ``tensorweave resume RUN`` printed).

The arguments every command shares and their parsing live in ``command_args``; exit codes,
``CommandParser`` and the error handling in ``command_line`` (both re-exported here).

>>> parse(["digits", "--train.epochs=2", "--quiet"], _train_parser())[1]
['--train.epochs=2']
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import tensorweave as tw
from tensorweave_train.command_args import base_parser as _base
from tensorweave_train.command_args import need_run_dir as _need_run_dir
from tensorweave_train.command_args import parse
from tensorweave_train.command_args import run_parser as _run_parser
from tensorweave_train.command_line import (
    EXIT_CODES,
    EXIT_OK,
    CommandParser,
    UsageError,
    add_commands,
    run_guarded,
)

__all__ = [
    "tensorweave_add_commands",
    "add_commands",
    "run_guarded",
    "CommandParser",
    "UsageError",
    "main",
    "parse",
    "EXIT_CODES",
]


def _train_parser() -> CommandParser:
    p = _base(
        "train",
        "[CONFIG] [--section.key=VALUE ...] [options]",
        "Train the model CONFIG describes (a file, or a built-in: digits (default), chars).",
    )
    p.add_argument("config", nargs="?", help="config file or built-in name")
    p.add_argument("--run-dir", help="where to write the run (default runs/NAME-TIME)")
    p.add_argument("--overwrite", action="store_true", help="replace the run already in --run-dir")
    p.add_argument("--quiet", action="store_true", help="print only the final summary")
    p.add_argument("--progress", action="store_true", default=None, help="force progress bars")
    _add_warm_start_options(p)
    return p


def _add_warm_start_options(p: CommandParser) -> None:
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


def _with_warm_start(cfg: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    """``cfg`` with the ``WarmStart.v1`` callback ``--warm-start`` asks for."""
    from tensorweave_train import warm_start
    from tensorweave_train.runs import resolve_run

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


# -- handlers ---------------------------------------------------------------------------
def _out(args: argparse.Namespace) -> Callable[[str], None] | None:
    return None if getattr(args, "quiet", False) else print


def _cmd_train(argv: list[str]) -> int:
    from tensorweave_train import job as jobs

    parser = _train_parser()
    args, overrides = parse(argv, parser)
    cfg = _with_warm_start(jobs.load_config(args.config, overrides), args)
    if args.help:
        parser.print_help()
        print(
            f"\nparameters of {jobs.config_path(args.config).name} "
            "(override any with --path=VALUE):\n"
        )
        from tensorweave_train.config_help import config_help

        print(config_help(cfg))
        return EXIT_OK
    summary = jobs.train(
        cfg,
        run_dir=args.run_dir,
        source=jobs.config_path(args.config),
        progress=args.progress,
        out=_out(args),
        overwrite=args.overwrite,
    )
    _print_summary(summary)
    return EXIT_OK


def _print_summary(summary: dict[str, Any]) -> None:
    values = "  ".join(f"{k} {v:.4f}" for k, v in summary["valid"].items())
    run = summary["run_dir"]
    print(
        f"done in {summary['train_seconds']:.1f}s: {summary['epochs']} epochs, "
        f"{summary['steps']} steps on {summary['train_examples']} examples\n"
        f"  validation: {values}\n  run directory: {run}\n"
        f"  next: tensorweave evaluate {run} | tensorweave plot {run} -o curves.svg | "
        f"tensorweave resume {run} --train.epochs=N"
    )


def _cmd_evaluate(argv: list[str]) -> int:
    from tensorweave_train import job as jobs

    parser = _run_parser("evaluate", "Evaluate a trained run on its validation data.")
    parser.add_argument("--split", default="valid", choices=["valid", "train"])
    args, overrides = parse(argv, parser)
    if args.help:
        parser.print_help()
        return EXIT_OK
    metrics = jobs.evaluate(_need_run_dir(args, parser), split=args.split, overrides=overrides)
    print(json.dumps(metrics))  # the figures exactly as summary.json and log.csv hold them
    return EXIT_OK


def _cmd_predict(argv: list[str]) -> int:
    import numpy as np

    from tensorweave_train import job as jobs

    parser = _run_parser("predict", "Run a trained model on raw input, with its processors.")
    parser.add_argument("--input", help="a .npy, .json or .txt file of raw examples")
    parser.add_argument("--text", help="raw text input (character models)")
    parser.add_argument("--generate", type=int, default=0, help="append N predicted items")
    parser.add_argument("--probabilities", action="store_true", help="print class probabilities")
    parser.add_argument("--top-k", type=int, metavar="K", help="print the K likeliest classes")
    _add_ensemble_options(parser)
    args, _ = parse(argv, parser)
    if args.help:
        parser.print_help()
        return EXIT_OK
    run_dir = _need_run_dir(args, parser)
    if args.text is not None:
        raw: Any = args.text
    elif args.input:
        path = Path(args.input)
        if not path.is_file():
            raise UsageError(f"tensorweave predict: no input file {path}")
        if path.suffix == ".npy":
            raw = np.load(path, allow_pickle=False)
        elif path.suffix == ".json":
            raw = np.asarray(json.loads(path.read_text()))
        else:
            raw = path.read_text()
    else:
        raise UsageError("tensorweave predict: give --input FILE or --text TEXT")
    if args.probabilities or args.top_k is not None:
        return _print_scores(run_dir, raw, args)
    if args.more_runs or args.voter:
        result = _ensemble_predict([str(run_dir), *args.more_runs], raw, args)
    else:
        result = jobs.predict(run_dir, raw, generate=args.generate)
    print(result if isinstance(result, str) else json.dumps(np.asarray(result).tolist()))
    return EXIT_OK


def _print_scores(run_dir: Path, raw: Any, args: argparse.Namespace) -> int:
    """``--probabilities``: one row of class probabilities per example; ``--top-k K``: the K
    likeliest ``[class, probability]`` pairs per example (JSON)."""
    import numpy as np

    from tensorweave_train import restore

    if args.more_runs or args.voter or args.generate:
        raise UsageError("tensorweave predict: --probabilities/--top-k take one run, no --generate")
    if args.top_k is not None and args.top_k < 1:
        raise UsageError(f"tensorweave predict: --top-k must be >= 1, got {args.top_k}")
    scores = restore.predict(run_dir, raw, postprocess=False)
    if args.top_k is not None:
        print(json.dumps(restore.top_k(scores, args.top_k)))
    else:
        print(json.dumps(np.round(restore.probabilities(scores), 6).tolist()))
    return EXIT_OK


def _add_ensemble_options(p: CommandParser) -> None:
    p.usage = "tensorweave predict RUN [RUN ...] [--voter NAME] (--input FILE | --text TEXT)"
    p.add_argument("more_runs", nargs="*", metavar="RUN", help="more runs: predict as an ensemble")
    p.add_argument("--voter", help="how an ensemble combines (default mean_probabilities.v1)")


def _ensemble_predict(runs: list[str], raw: Any, args: argparse.Namespace) -> Any:
    from tensorweave_train.ensemble import Ensemble

    if args.generate:
        raise UsageError("tensorweave predict: --generate works with one run, not an ensemble")
    return Ensemble(runs, voter=args.voter or "mean_probabilities.v1").predict(raw)


def _cmd_resume(argv: list[str]) -> int:
    from tensorweave_train import job as jobs

    parser = _run_parser("resume", "Continue a run from its newest valid checkpoint.")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--progress", action="store_true", default=None)
    args, overrides = parse(argv, parser)
    if args.help:
        parser.print_help()
        return EXIT_OK
    summary = jobs.resume(
        _need_run_dir(args, parser), overrides, progress=args.progress, out=_out(args)
    )
    _print_summary(summary)
    return EXIT_OK


def _cmd_plot(argv: list[str]) -> int:
    from tensorweave_train import plots

    parser = _run_parser("plot", "Plot a run's loss and metric curves from its log.csv.")
    parser.add_argument("-o", "--output", default="curves.svg", help=".svg, or .png/.pdf")
    args, _ = parse(argv, parser)
    if args.help:
        parser.print_help()
        return EXIT_OK
    log = _need_run_dir(args, parser) / "log.csv"
    if not log.is_file():
        raise UsageError(f"tensorweave plot: {log} does not exist (is it a run directory?)")
    out, series = plots.plot_log(log, args.output)
    print(f"wrote {out} ({', '.join(series)})")
    return EXIT_OK


def _cmd_draw(argv: list[str]) -> int:
    import tensorweave.config as twc
    from tensorweave_train import job as jobs

    parser = _base(
        "draw",
        "[CONFIG] -o graph.svg [--section.key=VALUE ...]",
        "Draw the layer graph of a config's [model] (.svg; .png needs Graphviz).",
    )
    parser.add_argument("config", nargs="?", help="config file or built-in name")
    parser.add_argument("-o", "--output", default="graph.svg")
    args, overrides = parse(argv, parser)
    if args.help:
        parser.print_help()
        return EXIT_OK
    cfg = jobs.load_config(args.config, overrides)
    errors = twc.validate({"model": cfg.get("model", {})})
    if errors:
        raise twc.ConfigError(errors)
    graph = twc.resolve({"model": cfg["model"]})["model"]
    ends = graph.layers("outputs") + graph.layers("loss")
    metrics = graph.section.get("metrics", {})
    scored = [graph[n] for n in (metrics.values() if isinstance(metrics, dict) else metrics)]
    ends += scored
    whole = tw.Graph.build(inputs=None, outputs=ends or [list(graph.nodes.values())[-1]])
    roles = {t: "target" for t in graph.layers("targets")}
    roles.update({m: "metric" for m in scored})
    roles.update({loss: "loss" for loss in graph.layers("loss")})
    print(tw.summary(whole, roles=roles))
    path = tw.draw(whole, args.output, roles=roles)
    print(f"wrote {path} ({len(whole.nodes)} nodes)")
    return EXIT_OK


COMMANDS: dict[str, tuple[Callable[[list[str]], int], str]] = {
    "train": (_cmd_train, "train a model from a config (default: the digits classifier)"),
    "evaluate": (_cmd_evaluate, "evaluate a trained run"),
    "predict": (_cmd_predict, "run a trained model on raw input"),
    "resume": (_cmd_resume, "continue a run from its newest checkpoint"),
    "plot": (_cmd_plot, "plot a run's loss and metric curves"),
    "draw": (_cmd_draw, "draw a config's layer graph"),
}
COMMANDS["export"] = (  # imported when run: this module stays light
    lambda argv: __import__("tensorweave_train.export_command", fromlist=["_"]).cmd_export(argv),
    "write a trained run as a SavedModel with its processors",
)


@tw.hookimpl
def tensorweave_add_commands(subparsers: Any) -> None:
    """Add train, evaluate, predict, resume, plot and draw to ``tensorweave``."""
    add_commands(subparsers, COMMANDS)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m tensorweave_train.commands ...``: the CLI with these commands registered
    (for use before the entry point is installed)."""
    import sys as _sys

    from tensorweave.cli import main as cli_main

    if not tw.plugins.manager.is_registered(_sys.modules[__name__]) and not any(
        hasattr(p, "tensorweave_add_commands") and getattr(p, "COMMANDS", None)
        for p in tw.plugins.manager.get_plugins()
    ):
        tw.plugins.register(_sys.modules[__name__], name="tensorweave-train:commands")
    return cli_main(list(argv) if argv is not None else None)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
