"""The pack's commands, added to ``tensorweave`` through the core hook ``tensorweave_add_commands``.

>>> sorted(COMMANDS)
[]
"""

from __future__ import annotations

from typing import Any

import tensorweave as tw
from tensorweave.cli.command import Command, add_commands

__all__ = ["COMMANDS", "tensorweave_add_commands"]

COMMANDS: dict[str, tuple[Command, str]] = {}


@tw.hookimpl
def tensorweave_add_commands(subparsers: Any) -> None:
    """Add this pack's commands to the ``tensorweave`` command line."""
    add_commands(subparsers, COMMANDS)
