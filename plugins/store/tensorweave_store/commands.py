"""The store's commands: ``tensorweave runs …`` and ``tensorweave models …``.

Added through the core hook ``tensorweave_add_commands``; light at import (SQLAlchemy and
TensorFlow load only when a command runs).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensorweave as tw

__all__ = ["tensorweave_add_commands", "COMMANDS"]

COMMANDS: dict[str, tuple[Callable[[list[str]], int], str]] = {}


@tw.hookimpl
def tensorweave_add_commands(subparsers: Any) -> None:
    """Add the store's commands to ``tensorweave``."""
    from tensorweave_train.commands import run_guarded

    for name, (fn, help_text) in COMMANDS.items():
        sub = subparsers.add_parser(name, help=help_text, add_help=False, prefix_chars="+")
        sub.add_argument("args", nargs="*")
        sub.set_defaults(func=lambda ns, fn=fn: run_guarded(fn, list(ns.args)))
