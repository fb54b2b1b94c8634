"""Make the test helpers importable (``import twtrain_helpers``) under importlib mode, and
the fixtures the command and run tests share."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

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


@pytest.fixture(scope="session")
def digits_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny run of the built-in digits job (``twtrain_helpers.TINY``), shared: read it, or
    change a copy (``twtrain_helpers.copied``)."""
    from twtrain_helpers import trained_run

    return trained_run(tmp_path_factory.mktemp("digits") / "run")
