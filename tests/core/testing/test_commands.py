"""``CommandCase``: a command a pack adds through a hook is on the command line, runs as a
user runs it, and its hook module stays light."""

from __future__ import annotations

import os

import pytest

from tensorweave.testing import CommandCase, run_check
from tests.fakes import COMMANDS_SOURCE

HEAVY_COMMANDS = """
import tensorflow
import tensorweave as tw


@tw.hookimpl
def tensorweave_add_commands(subparsers):
    cmd = subparsers.add_parser("heavy-fake")
    cmd.set_defaults(func=lambda args: print("heavy") or 0)
"""


@pytest.fixture
def on_path(fake_dists, monkeypatch):
    """The fake distributions are visible to the subprocesses the checks start, too."""

    def add(*args, **kwargs):
        dist = fake_dists.add(*args, **kwargs)
        monkeypatch.setenv(
            "PYTHONPATH", os.pathsep.join([str(dist.path), os.environ.get("PYTHONPATH", "")])
        )
        return dist

    return add


def test_a_command_added_by_a_hook_passes_every_check(on_path):
    dist = on_path(
        "hello-pack", entry_points={"plugins": {"cmds": "cmds"}}, modules={"cmds": COMMANDS_SOURCE}
    )
    case = CommandCase("hello-fake", distribution=dist.name, output="hello from a plugin")
    for check in ("added", "runs", "hooks_are_light"):
        run_check(case, check)


def test_a_command_nobody_adds_and_a_wrong_exit_code_are_caught(on_path):
    dist = on_path(
        "hello-pack", entry_points={"plugins": {"cmds": "cmds"}}, modules={"cmds": COMMANDS_SOURCE}
    )
    with pytest.raises(AssertionError, match="is not on the command line"):
        run_check(CommandCase("no-such-command", distribution=dist.name), "added")
    with pytest.raises(AssertionError, match="exited 0, expected 3"):
        run_check(CommandCase("hello-fake", exit_code=3), "runs")


def test_a_hook_module_that_imports_tensorflow_is_caught(on_path):
    dist = on_path(
        "heavy-pack", entry_points={"plugins": {"cmds": "cmds"}}, modules={"cmds": HEAVY_COMMANDS}
    )
    with pytest.raises(AssertionError, match="imports TensorFlow"):
        run_check(CommandCase("heavy-fake", distribution=dist.name), "hooks_are_light")
