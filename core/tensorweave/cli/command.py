"""What every ``tensorweave`` command runs on, the core's and every pack's: exit codes, a
parser that raises instead of exiting, the guarded run that turns errors into a message and
an exit code, and ``add_commands`` for a pack's ``tensorweave_add_commands`` hook.

An error picks its exit code by class: ``UsageError`` 2, an unknown or unloadable component
3, an invalid config 4 (every problem listed with its dotted path), ``KeyboardInterrupt``
130, anything else 1. A pack's own error class declares its code with a class attribute
(``exit_code = 2`` for a run directory in use); no list of pack errors lives here. Imports
no TensorFlow: a command that only reads files or a database answers fast.

>>> import tensorweave as tw
>>> class RunInUse(tw.TensorweaveError):
...     exit_code = 2
>>> def command(argv):
...     raise RunInUse("runs/a is in use by pid 7")
>>> run_guarded(command, [])
2
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Callable, Mapping
from typing import Any

from tensorweave.errors import RegistryError, TensorweaveError

__all__ = [
    "EXIT_OK",
    "EXIT_FAIL",
    "EXIT_USAGE",
    "EXIT_COMPONENT",
    "EXIT_CONFIG",
    "EXIT_INTERRUPTED",
    "EXIT_CODES",
    "Command",
    "CommandParser",
    "UsageError",
    "add_commands",
    "exit_code",
    "run_guarded",
]

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_COMPONENT, EXIT_CONFIG, EXIT_INTERRUPTED = 0, 1, 2, 3, 4, 130
EXIT_CODES = {
    EXIT_OK: "success",
    EXIT_FAIL: "failure while running (training, I/O, a data processor)",
    EXIT_USAGE: "usage error (bad option, missing file or run directory, run directory in use)",
    EXIT_COMPONENT: "unknown or unloadable component",
    EXIT_CONFIG: "invalid config (every problem listed with its dotted path)",
    EXIT_INTERRUPTED: "interrupted (a checkpoint is saved)",
}

Command = Callable[[list[str]], int]  # a command: its arguments in, its exit code out


class UsageError(TensorweaveError):
    """A command-line mistake (exit code 2)."""

    exit_code = EXIT_USAGE


class CommandParser(argparse.ArgumentParser):
    """An argument parser that raises ``UsageError`` (exit code 2 through ``run_guarded``)
    instead of exiting the process."""

    def error(self, message: str) -> Any:
        raise UsageError(f"{self.prog}: {message}")


def _config_error_code(error: BaseException) -> int | None:
    """The exit code of a config error (2 for a missing file, 3 when every problem is an
    unknown component, else 4), or ``None`` for another error. The class is looked up
    only when its module is loaded (nothing else can have raised it), so this module
    never imports the config package, nor TensorFlow through it."""
    config_error = getattr(sys.modules.get("tensorweave.config.errors"), "ConfigError", None)
    if config_error is None or not isinstance(error, config_error):
        return None
    problems = getattr(error, "errors", [])
    if any(message.startswith("no config file") for _, message in problems):
        return EXIT_USAGE
    if all(path.rsplit(".", 1)[-1].startswith("@") for path, _ in problems):
        return EXIT_COMPONENT
    return EXIT_CONFIG


def exit_code(error: BaseException) -> int:
    """The documented exit code of ``error`` (see the module docstring).

    >>> exit_code(UsageError("bad option")), exit_code(KeyboardInterrupt()), exit_code(OSError())
    (2, 130, 1)
    """
    declared = getattr(type(error), "exit_code", None)
    if isinstance(declared, int) and not isinstance(declared, bool):
        return declared
    config = _config_error_code(error)
    if config is not None:
        return config
    if isinstance(error, RegistryError):
        return EXIT_COMPONENT
    if isinstance(error, KeyboardInterrupt):
        return EXIT_INTERRUPTED
    return EXIT_FAIL


def run_guarded(fn: Command, argv: list[str], *, traceback_hint: bool = True) -> int:
    """Run ``fn(argv)``, turning an error into ``error: <message>`` on stderr and its exit
    code. ``--traceback`` in ``argv`` prints the traceback of any error (a config or plugin
    error too, so a plugin author sees the plugin's own frames); without it, an unexpected
    error's message says it is there (``traceback_hint``)."""
    show_tb = "--traceback" in argv
    try:
        return fn(argv)
    except SystemExit as err:  # a parser's own --help (or exit): its code, not a failure
        return err.code if isinstance(err.code, int) else EXIT_OK
    except BrokenPipeError:  # `tensorweave plugins | head`: the reader left, not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as err:
        code = exit_code(err)
        if code == EXIT_INTERRUPTED:  # the message says where the checkpoint is
            print(str(err), file=sys.stderr)
            return code
        if code != EXIT_FAIL:
            if show_tb:  # e.g. a plugin that failed to import: its own frames, then the cause
                traceback.print_exc()
            print(f"error: {err}", file=sys.stderr)
            return code
        if show_tb:
            traceback.print_exc()
        kind = "" if isinstance(err, TensorweaveError) else f"{type(err).__name__}: "
        print(f"error: {kind}{err}", file=sys.stderr)
        if traceback_hint and not show_tb:
            print("  (run again with --traceback for the details)", file=sys.stderr)
        return code


def add_commands(subparsers: Any, commands: Mapping[str, tuple[Command, str]]) -> None:
    """Add ``{name: (fn(argv) -> exit code, help)}`` to ``tensorweave`` (the ``subparsers``
    a ``tensorweave_add_commands`` hook receives): every argument (even ``--help`` and
    ``--a.b=1``) reaches ``fn``, which runs under ``run_guarded``."""
    for name, (fn, help_text) in commands.items():
        # '+' prefix: every argument reaches the command's own parser
        sub = subparsers.add_parser(name, help=help_text, add_help=False, prefix_chars="+")
        sub.add_argument("args", nargs="*")
        sub.set_defaults(func=lambda ns, fn=fn: run_guarded(fn, list(ns.args)))
