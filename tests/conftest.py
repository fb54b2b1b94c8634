"""Fixtures shared by the core test suite: fake plugin distributions and small layers."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # so test modules can ``from tests.fakes import ...``
    sys.path.insert(0, str(ROOT))

from tests.fakes import FakeDists  # noqa: E402


@pytest.fixture
def fake_dists(tmp_path: Path) -> Iterator[FakeDists]:
    """Real ``dist-info`` directories on ``sys.path``, undone (and re-scanned) afterwards."""
    fakes = FakeDists(tmp_path)
    try:
        yield fakes
    finally:
        fakes.cleanup()
