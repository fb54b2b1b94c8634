"""The command-line machinery the train pack's commands run on, and packs that add their
own commands reuse: exit codes, ``CommandParser`` (raises ``UsageError`` instead of exiting),
``run_guarded`` (errors -> messages and exit codes) and ``add_commands``.

It imports no TensorFlow: a command that only reads files or a database answers fast.

>>> EXIT_CODES[2]
'usage error (bad option, missing file or run directory, run directory in use)'
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Callable, Mapping
from typing import Any

import tensorweave as tw

__all__ = [
    "EXIT_CODES",
    "CommandParser",
    "UsageError",
    "add_commands",
    "run_guarded",
]

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_COMPONENT, EXIT_CONFIG, EXIT_INTERRUPTED = 0, 1, 2, 3, 4, 130
EXIT_CODES = {
    0: "success",
    1: "failure while running (training, I/O, a data processor)",
    2: "usage error (bad option, missing file or run directory, run directory in use)",
    3: "unknown or unloadable component",
    4: "invalid config (every problem listed with its dotted path)",
    130: "interrupted (a checkpoint is saved)",
}


class UsageError(Exception):
    """A command-line mistake (exit code 2)."""


class CommandParser(argparse.ArgumentParser):
    """An argument parser that raises ``UsageError`` (exit code 2 through ``run_guarded``)
    instead of exiting, for the commands of this pack and of packs that build on it."""

    def error(self, message: str) -> Any:
        raise UsageError(f"{self.prog}: {message}")


class _NotRaised(Exception):
    """Stands for an error class whose module never loaded: nothing can have raised it."""


def _loaded_class(module: str, name: str) -> Callable[[], Any]:
    """The error class ``module.name`` if ``module`` is loaded when asked, else
    ``_NotRaised``; asked when an exception is matched, after the command ran."""
    return lambda: getattr(sys.modules.get(module), name, _NotRaised)


def run_guarded(fn: Callable[[list[str]], int], argv: list[str]) -> int:
    """Run a command, turning errors into messages and documented exit codes."""
    # The error classes are looked up only in modules the command has already loaded
    # (an error cannot come from a module that never ran), so a command that reads a
    # database answers without importing TensorFlow through ``tensorweave.config``.
    config_error = _loaded_class("tensorweave.config.errors", "ConfigError")
    interrupted = _loaded_class("tensorweave_train.guards", "Interrupted")
    predict_error = _loaded_class("tensorweave_train.guards", "PredictInputError")
    run_dir_error = _loaded_class("tensorweave_train.rundir", "RunDirError")

    show_tb = "--traceback" in argv
    try:
        return fn(argv)
    except SystemExit as err:  # a parser's own --help (or exit): its code, not a failure
        return err.code if isinstance(err.code, int) else 0
    except (UsageError, run_dir_error(), predict_error()) as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except interrupted() as err:
        print(str(err), file=sys.stderr)
        return EXIT_INTERRUPTED
    except config_error() as err:
        print(f"error: {err}", file=sys.stderr)
        unknown = all(p.rsplit(".", 1)[-1].startswith("@") for p, _ in err.errors)
        missing_file = any(m.startswith("no config file") for _, m in err.errors)
        return EXIT_USAGE if missing_file else EXIT_COMPONENT if unknown else EXIT_CONFIG
    except tw.RegistryError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_COMPONENT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as err:
        if show_tb:
            traceback.print_exc()
        kind = "" if isinstance(err, tw.TensorweaveError) else f"{type(err).__name__}: "
        print(f"error: {kind}{err}", file=sys.stderr)
        if not show_tb:
            print("  (run again with --traceback for the details)", file=sys.stderr)
        return EXIT_FAIL


def add_commands(
    subparsers: Any, commands: Mapping[str, tuple[Callable[[list[str]], int], str]]
) -> None:
    """Add ``{name: (fn(argv) -> exit code, help)}`` to ``tensorweave``: every argument
    (even ``--help`` and ``--a.b=1``) reaches ``fn``, which runs under ``run_guarded``.
    Packs that build on this one add their commands the same way."""
    for name, (fn, help_text) in commands.items():
        # '+' prefix: every argument reaches the command's own parser
        sub = subparsers.add_parser(name, help=help_text, add_help=False, prefix_chars="+")
        sub.add_argument("args", nargs="*")
        sub.set_defaults(func=lambda ns, fn=fn: run_guarded(fn, list(ns.args)))
