"""Make the test helpers importable (``import twtrain_helpers``) under importlib mode, and
the fixtures the command and run tests share."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest

sys.path.insert(0, os.path.dirname(__file__))


@pytest.fixture
def no_conflict_demo() -> Iterator[None]:
    """tests/integration/test_conflict.py installs a pack offering a second ``Linear.v1``
    for a moment; block it so a parallel run cannot make the bare name ambiguous."""
    import tensorweave as tw

    tw.plugins.block("tensorweave-conflict-demo")
    yield
    tw.plugins.unblock("tensorweave-conflict-demo")


@pytest.fixture
def cli(no_conflict_demo: None) -> Iterator[None]:
    """This pack's commands registered (when its entry point is not installed yet)."""
    import tensorweave as tw
    from tensorweave_train import commands

    mine = [p for p in tw.plugins.manager.get_plugins() if getattr(p, "COMMANDS", None)]
    if not mine:
        tw.plugins.register(commands, name="test:commands")
    yield
    if not mine:
        tw.plugins.unregister(commands)
