"""The store's command groups on the ``tensorweave`` command line: ``tensorweave runs …``
(``cli.runs``), ``tensorweave models …`` (``cli.models``), ``tensorweave datasets …``
(``cli.datasets``).

Added through the core hook ``tensorweave_add_commands`` (this module is the pack's
``store_commands`` entry point); light at import (SQLAlchemy and TensorFlow load only when a
command runs). Every command takes ``--store URL`` (default ``TENSORWEAVE_STORE``, else
``runs/tensorweave-store.db``). Exit codes as ``tensorweave train``: 0 success, 1 failure
(a store error, with its fix), 2 usage error.

>>> sorted(COMMANDS)
['datasets', 'models', 'runs']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensorweave as tw
from tensorweave.cli.command import add_commands, run_guarded
from tensorweave_store.cli.datasets import cmd_datasets
from tensorweave_store.cli.models import cmd_models
from tensorweave_store.cli.runs import cmd_runs

__all__ = ["tensorweave_add_commands", "COMMANDS", "main"]

COMMANDS: dict[str, tuple[Callable[[list[str]], int], str]] = {
    "runs": (cmd_runs, "list, show, compare, tag and remove recorded runs (tensorweave-store)"),
    "models": (cmd_models, "register, list, show and stage model versions (tensorweave-store)"),
    "datasets": (cmd_datasets, "list and show stored datasets (tensorweave-store)"),
}


@tw.hookimpl
def tensorweave_add_commands(subparsers: Any) -> None:
    """Add ``runs``, ``models`` and ``datasets`` to ``tensorweave``."""
    add_commands(subparsers, COMMANDS)


def main(argv: list[str] | None = None) -> int:
    """``python -m tensorweave_store.cli.hooks runs list``: the commands without the CLI."""
    import sys

    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in COMMANDS:
        print(f"usage: python -m tensorweave_store.cli.hooks {{{','.join(COMMANDS)}}} ...")
        return 2
    return run_guarded(COMMANDS[argv[0]][0], argv[1:])


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
