"""Make the test helpers importable (``import twmodels_helpers``) under importlib mode, and
the fixtures every test of this pack uses."""

from __future__ import annotations

import os
import sys

import pytest

import tensorweave as tw

sys.path.insert(0, os.path.dirname(__file__))


@pytest.fixture(autouse=True)
def fresh_names() -> None:
    """Every test names its modules from a clean slate (``resnet18``, not ``resnet18_7``)."""
    tw.reset_names()
