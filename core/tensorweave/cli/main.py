"""The ``tensorweave`` entry point: one parser for the core's and every pack's commands.

Core commands are ``plugins``, ``describe``, ``new-plugin`` and ``catalogue``; installed packs add theirs
(``train``, ``evaluate``…) through the ``tensorweave_add_commands`` hook, each pack's hook
called on its own so a broken one cannot hide another's commands. TensorFlow's C++ and
Python logging is quieted before any command runs, so a command that trains does not open
with CUDA noise on a CPU machine; ``TF_CPP_MIN_LOG_LEVEL`` set by the user wins.

Exit codes and error messages are those of every command (``command``): 0 success, 1
failure, 2 usage error, 3 unknown or unloadable component, 4 invalid config, 130 interrupted.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

from tensorweave.cli import catalogue, describe, listing, scaffold
from tensorweave.cli.command import EXIT_CODES, EXIT_USAGE, run_guarded
from tensorweave.cli.quiet import quiet_tensorflow_import
from tensorweave.registries import CORE_VERSION, plugins

__all__ = ["main", "build_parser", "quiet_tensorflow", "EXIT_CODES"]


def quiet_tensorflow() -> None:
    """Quiet TensorFlow's logging before it is imported: its C++ log level (on a CPU
    machine its CUDA probe logs ``failed call to cuInit`` as an error), its Python loggers,
    and the notices its native libraries print while loading (see ``quiet``)."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    logging.getLogger("tensorflow").setLevel(logging.ERROR)
    logging.getLogger("absl").setLevel(logging.ERROR)
    quiet_tensorflow_import()


def build_parser() -> argparse.ArgumentParser:
    """The argument parser, with every plugin's subcommands added."""
    parser = argparse.ArgumentParser(
        prog="tensorweave",
        description="Build, compile and train neural networks from installed plugins.",
    )
    parser.add_argument("--version", action="version", version=f"tensorweave {CORE_VERSION}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    listing.add_command(sub)
    describe.add_command(sub)
    scaffold.add_command(sub)
    catalogue.add_command(sub)
    # Each pack's hook runs on its own: one that raises is recorded (``tensorweave plugins``
    # shows it) and warned about, and the other packs' commands are still added.
    plugins.call("tensorweave_add_commands", subparsers=sub)
    return parser


def _one_line_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    line: str | None = None,
) -> str:
    """A warning on the command line: ``warning: <message> (<Category>)``, without the
    source line Python shows by default (it points into library code, not at the user's)."""
    return f"warning: {message} ({category.__name__})\n"


def _warn_about_broken_hooks() -> None:
    """One line per hook module that failed to import and per ``tensorweave_add_commands``
    hook that raised: either way that pack's commands are missing, and the user should
    know why before argparse answers ``invalid choice``."""
    broken = [(f, "its hook module failed to load") for f in plugins.module_failures()]
    broken += [
        (f, "its commands could not be added")
        for f in plugins.failures()
        if f.entry_point == "tensorweave_add_commands"
    ]
    for failure, what in broken:
        print(
            f"warning: {failure.distribution}: {what} "
            f"({type(failure.cause).__name__}: {failure.cause}); `tensorweave plugins` "
            "shows every broken plugin.",
            file=sys.stderr,
        )


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tensorweave`` script; returns the exit code."""
    quiet_tensorflow()
    import warnings

    warnings.formatwarning = _one_line_warning
    with warnings.catch_warnings():
        # Broken plugins are reported by `tensorweave plugins`; here one line each suffices.
        warnings.simplefilter("ignore", RuntimeWarning)
        parser = build_parser()
    _warn_about_broken_hooks()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    # a pack's command runs guarded already (add_commands); the core's run the same way
    return run_guarded(lambda _: int(args.func(args)), [], traceback_hint=False)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
