"""``CommandCase``: the conformance kit for a ``tensorweave`` subcommand a pack adds.

A pack adds commands through the ``tensorweave_add_commands`` hook in a module named in
its ``tensorweave.plugins`` entry points. Every check runs on every case:

- ``added``: the command is on the ``tensorweave`` command line, and (when the case names
  the ``distribution``) it is that distribution's hook that adds it: blocking the
  distribution removes it;
- ``runs``: ``python -m tensorweave COMMAND ARGS`` in a fresh process, as a user runs it,
  exits with ``exit_code`` and prints ``output``;
- ``hooks_are_light``: the distribution's hook modules import no TensorFlow (they are
  imported to build every command line, ``tensorweave plugins`` included).

>>> from tensorweave.testing import CommandCase
>>> sorted(CommandCase("plugins").checks())
['added', 'hooks_are_light', 'runs']
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import tensorweave as tw
from tensorweave.cli import build_parser
from tensorweave.registries.discovery import HOOKS_GROUP

__all__ = ["CommandCase"]


@dataclass
class CommandCase:
    """One ``tensorweave`` subcommand to check.

    Args:
        command: the subcommand (``"augment-preview"``).
        args: arguments for the ``runs`` check.
        distribution: the pack whose hook adds it (checked by ``added``, and its hook
            modules by ``hooks_are_light``).
        exit_code: what ``runs`` expects the command to exit with.
        output: text ``runs`` expects in its output (stdout and stderr).
        skip: checks to skip, each with the reason.
    """

    command: str
    args: Sequence[str] = ()
    distribution: str | None = None
    exit_code: int = 0
    output: str = ""
    skip: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        return " ".join(["tensorweave", self.command, *self.args])

    def checks(self) -> dict[str, Callable[[CommandCase], None]]:
        """The checks of a command case."""
        return {"added": _added, "runs": _runs, "hooks_are_light": _hooks_are_light}


def _on_command_line(command: str) -> bool:
    """Whether ``tensorweave COMMAND`` is a command (argparse answers ``invalid choice``
    for one that is not; anything else, even a usage error, means it is there)."""
    parser = build_parser()
    errors = io.StringIO()
    with contextlib.redirect_stderr(errors), contextlib.redirect_stdout(io.StringIO()):
        try:
            parser.parse_args([command])
        except SystemExit:
            return "invalid choice" not in errors.getvalue()
    return True


def _added(case: CommandCase) -> None:
    broken = [
        f
        for f in tw.plugins.failures()
        if case.distribution and f.distribution == case.distribution
    ]
    assert not broken, f"{case}: the hooks of {case.distribution} failed: {broken[0]}"
    assert _on_command_line(case.command), f"{case}: {case.command!r} is not on the command line"
    if case.distribution is None:
        return
    tw.plugins.block(case.distribution)
    try:
        still_there = _on_command_line(case.command)
    finally:
        tw.plugins.unblock(case.distribution)
    assert not still_there, (
        f"{case}: {case.command!r} stays when {case.distribution} is blocked: another pack adds it"
    )


def _runs(case: CommandCase) -> None:
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    done = subprocess.run(
        [sys.executable, "-m", "tensorweave", case.command, *case.args],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    text = done.stdout + done.stderr
    assert done.returncode == case.exit_code, (
        f"{case}: exited {done.returncode}, expected {case.exit_code}:\n{text[-3000:]}"
    )
    assert case.output in text, f"{case}: {case.output!r} is not in its output:\n{text[-3000:]}"


def _hooks_are_light(case: CommandCase) -> None:
    if case.distribution is None:
        return
    modules = [
        ref.value.split(":")[0]
        for ref in tw.catalog.entry_points(HOOKS_GROUP)
        if ref.distribution == case.distribution
    ]
    assert modules, f"{case}: {case.distribution} names no module in {HOOKS_GROUP!r}"
    code = f"import json, sys, {', '.join(modules)}; print(json.dumps('tensorflow' in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) is False, (
        f"{case}: importing {modules} imports TensorFlow. Fix: import heavy modules inside "
        "the command's handler, not at module level."
    )
