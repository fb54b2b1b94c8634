"""The pack's commands: ``tensorweave train|evaluate|predict|resume|export|plot|draw|reproduce|upgrade``.

Added to the ``tensorweave`` command line through the core hook ``tensorweave_add_commands``
(this package is a ``tensorweave.plugins`` entry point, so it stays light: each command's
module is imported when it runs). Each command takes ``--section.key=VALUE`` overrides of
its config, typed as TOML values::

    tensorweave train                                  # the built-in digits classifier
    tensorweave train chars --train.epochs=2           # the char-LSTM, shorter
    tensorweave train my.toml --optimizer.@optimizers=SGD.v1 --optimizer.momentum=0.9
    tensorweave train my.toml --help                   # the parameters my.toml selects
    tensorweave evaluate RUN_DIR
    tensorweave predict RUN_DIR --input digits.npy     # or --text "def " --generate 40
    tensorweave resume RUN_DIR --train.epochs=40
    tensorweave export RUN_DIR -o OUT                  # a SavedModel with its processors
    tensorweave plot RUN_DIR -o curves.svg             # .png/.pdf need matplotlib
    tensorweave draw my.toml -o graph.svg              # .png needs Graphviz
    tensorweave reproduce RUN_DIR --find-links wheels/ # rebuild, re-run, compare (--bisect)
    tensorweave upgrade my.toml -o my.v2.toml          # names packs declare moved, with a diff

Exit codes (every command's, ``tensorweave.cli.command``): 0 success; 1 failure while
running (training, I/O, a processor, NaN); 2 usage error (bad option, missing file or run
directory, a run directory in use or holding a run without ``--overwrite``, input
``predict`` cannot take); 3 unknown or unloadable component; 4 invalid config (every
problem is listed with its dotted path); 5 ``reproduce``: a figure moved; 130 interrupted (a checkpoint is saved and
``tensorweave resume RUN`` printed). The options every command shares are in ``arguments``.

>>> sorted(COMMANDS)
['draw', 'evaluate', 'export', 'plot', 'predict', 'reproduce', 'resume', 'train', 'upgrade']
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

import tensorweave as tw
from tensorweave.cli.command import (
    EXIT_CODES,
    Command,
    CommandParser,
    UsageError,
    add_commands,
    run_guarded,
)
from tensorweave_train.commands.arguments import parse_command_line as parse

__all__ = [
    "COMMANDS",
    "tensorweave_add_commands",
    "main",
    # for a release: the command framework is the core's (tensorweave.cli.command) now
    "EXIT_CODES",
    "CommandParser",
    "UsageError",
    "add_commands",
    "parse",
    "run_guarded",
]


def _lazy(module: str, function: str) -> Command:
    """The command ``function`` of ``module`` (under this package), imported when it runs."""

    def command(argv: list[str]) -> int:
        found: Command = getattr(importlib.import_module(f"{__name__}.{module}"), function)
        return found(argv)

    return command


COMMANDS: dict[str, tuple[Command, str]] = {
    "train": (_lazy("train", "cmd_train"), "train a model from a config (default: digits)"),
    "evaluate": (_lazy("evaluate", "cmd_evaluate"), "evaluate a trained run"),
    "predict": (_lazy("predict", "cmd_predict"), "run a trained model on raw input"),
    "resume": (_lazy("train", "cmd_resume"), "continue a run from its newest checkpoint"),
    "plot": (_lazy("plot", "cmd_plot"), "plot a run's loss and metric curves"),
    "draw": (_lazy("draw", "cmd_draw"), "draw a config's layer graph"),
    "export": (
        _lazy("export", "cmd_export"),
        "write a trained run as a SavedModel with its processors",
    ),
    "reproduce": (
        _lazy("reproduce", "cmd_reproduce"),
        "rebuild a run's recorded environment, re-run it and compare its figures",
    ),
    "upgrade": (
        _lazy("upgrade", "cmd_upgrade"),
        "rewrite the component names packs declare moved (Foo.v1 -> Foo.v2), with a diff",
    ),
}


@tw.hookimpl
def tensorweave_add_commands(subparsers: Any) -> None:
    """Add train, evaluate, predict, resume, export, plot, draw, reproduce and upgrade to
    ``tensorweave``."""
    add_commands(subparsers, COMMANDS)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m tensorweave_train.commands ...``: the CLI with these commands registered
    (for use before the entry point is installed)."""
    import sys

    from tensorweave.cli import main as cli_main

    this = sys.modules[__name__]
    if not tw.plugins.manager.is_registered(this) and not any(
        hasattr(p, "tensorweave_add_commands") and getattr(p, "COMMANDS", None)
        for p in tw.plugins.manager.get_plugins()
    ):
        tw.plugins.register(this, name="tensorweave-train:commands")
    return cli_main(list(argv) if argv is not None else None)
