"""The ``tensorweave`` command: ``plugins``, ``describe``, ``new-plugin``, and pack commands.

- ``main``: the parser (core commands plus every pack's, through ``tensorweave_add_commands``),
  exit codes, and TensorFlow's logging quieted before any command can import it;
- ``listing``: ``tensorweave plugins`` (metadata only; ``--check`` imports everything);
- ``describe``: ``tensorweave describe NAME`` (read from the component's source; ``--load``
  imports it);
- ``scaffold``: ``tensorweave new-plugin NAME``;
- ``command``: what every command runs on, the core's and every pack's (exit codes,
  ``CommandParser``, ``UsageError``, ``run_guarded``, ``add_commands``).

``tensorweave plugins`` and ``tensorweave describe`` never import TensorFlow.

>>> from tensorweave.cli import main
>>> main(["describe", "--kind", "doc_no_such_kind", "Nothing.v1"])
3
"""

from tensorweave.cli.command import (
    EXIT_CODES,
    CommandParser,
    UsageError,
    add_commands,
    exit_code,
    run_guarded,
)
from tensorweave.cli.main import build_parser, main

__all__ = [
    "EXIT_CODES",
    "CommandParser",
    "UsageError",
    "add_commands",
    "build_parser",
    "exit_code",
    "main",
    "run_guarded",
]
