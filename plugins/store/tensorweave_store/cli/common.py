"""What every store command shares: its parser (``--store``, ``--traceback``), the store it
opens and the dispatch of ``tensorweave GROUP ACTION``.

Light at import (SQLAlchemy loads only when a command opens the store).

>>> parser("runs", "tag").parse_args(["--store", "sqlite:///s.db"]).store
'sqlite:///s.db'
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from tensorweave.cli.command import CommandParser, UsageError

__all__ = ["parser", "open_from", "dispatch"]


def parser(command: str, action: str, description: str = "") -> CommandParser:
    """The parser of ``tensorweave COMMAND ACTION`` with the options every store command has."""
    p = CommandParser(prog=f"tensorweave {command} {action}", description=description)
    p.add_argument("--store", help="store URL (default: $TENSORWEAVE_STORE or the runs root's)")
    p.add_argument("--traceback", action="store_true", help="show the full traceback on errors")
    return p


def open_from(args: argparse.Namespace) -> Any:
    """The store this command's ``--store`` names (else the environment's)."""
    from tensorweave_store.db.urls import select
    from tensorweave_store.store import open_store

    select(args.store)  # this command's --store (or none): as the train pack's commands do
    return open_store(args.store)


def dispatch(
    argv: list[str], command: str, actions: dict[str, Callable[..., int]], usage: str
) -> int:
    """Run ``tensorweave COMMAND ACTION ...``: ``usage`` for ``-h`` (exit 2 without an action)."""
    if not argv or argv[0] in ("-h", "--help"):
        print(f"usage: tensorweave {command} {{{','.join(actions)}}} ...\n")
        print(usage.split("::", 1)[-1].split("Exit codes")[0])
        return 0 if argv else 2
    action, rest = argv[0], argv[1:]
    if action not in actions:
        raise UsageError(
            f"tensorweave {command}: unknown action {action!r}; actions: {', '.join(actions)}"
        )
    return actions[action](rest)
