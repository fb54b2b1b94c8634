"""The pack's commands: ``tensorweave data show CONFIG|DATASET``, ``tensorweave data verify
CONFIG|RUN``.

Added to the ``tensorweave`` command line through the core hook ``tensorweave_add_commands``
(this module is a ``tensorweave.plugins`` entry point, so it stays light: TensorFlow and the
datasets load only when a command runs). Exit codes as every command's
(``tensorweave.cli.command``): 0 success, 1 failure while reading, 2 usage error (a missing
file or folder, a name that is neither a config nor a dataset), 3 unknown component in a
config, 4 invalid config::

    tensorweave data show image_folder.v1 --directory data/shapes -o grid.png
    tensorweave data show my.toml --samples 5 --no-count
    tensorweave data verify runs/RUN       # its files changed since it read them? (exit 1)

>>> sorted(COMMANDS), sorted(ACTIONS)
(['data'], ['show', 'verify'])
"""

from __future__ import annotations

import importlib
from typing import Any

import tensorweave as tw
from tensorweave.cli.command import Command, UsageError, add_commands

__all__ = ["COMMANDS", "ACTIONS", "tensorweave_add_commands"]


def _lazy(module: str, function: str) -> Command:
    """The command ``function`` of ``tensorweave_data.<module>``, imported when it runs."""

    def command(argv: list[str]) -> int:
        found: Command = getattr(importlib.import_module(f"tensorweave_data.{module}"), function)
        return found(argv)

    return command


ACTIONS: dict[str, tuple[Command, str]] = {
    "show": (_lazy("show", "cmd_show"), "fields, sizes, class counts and samples of a dataset"),
    "verify": (
        _lazy("verify", "cmd_verify"),
        "re-read a run's data files: which changed, went missing or are new",
    ),
}


def _data(argv: list[str]) -> int:
    """``tensorweave data ACTION ...``."""
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: tensorweave data {" + ",".join(ACTIONS) + "} ...\n")
        for name, (_, text) in ACTIONS.items():
            print(f"  {name:<6} {text}")
        if not argv:
            raise UsageError("tensorweave data: name an action: " + ", ".join(ACTIONS))
        return 0
    action, rest = argv[0], argv[1:]
    if action not in ACTIONS:
        raise UsageError(
            f"tensorweave data: unknown action {action!r}; actions: {', '.join(ACTIONS)}"
        )
    return ACTIONS[action][0](rest)


COMMANDS: dict[str, tuple[Command, str]] = {
    "data": (
        _data,
        "look at a dataset (data show CONFIG|DATASET), check a run's files (data verify RUN)",
    ),
}


@tw.hookimpl
def tensorweave_add_commands(subparsers: Any) -> None:
    """Add ``tensorweave data`` to the command line."""
    add_commands(subparsers, COMMANDS)
