"""Fixtures: every store test runs on SQLite AND on a real PostgreSQL server.

The server comes from the ``pgserver`` wheel (PostgreSQL binaries, no system set-up), started
once per test session (per xdist worker) in a temporary directory and stopped at the end;
each test gets a fresh database on it. ``twstore_helpers`` starts the real ``tensorweave``
command in a subprocess with the store pointed at the test's database.
"""

from __future__ import annotations

import itertools
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, os.path.dirname(__file__))  # twstore_helpers, under importlib mode

BACKENDS = ["sqlite", "postgresql"]
_COUNTER = itertools.count()


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """A PostgreSQL server for the session: its SQLAlchemy URL (to the ``postgres`` db)."""
    import warnings

    import pgserver

    # a short directory: the server's Unix socket lives there (path limit ~100 chars)
    where = tempfile.mkdtemp(prefix="twpg-")
    os.environ.setdefault("XDG_RUNTIME_DIR", where)  # platformdirs warns when it is unset
    with warnings.catch_warnings():  # platformdirs: XDG_RUNTIME_DIR unset on CI
        warnings.simplefilter("ignore")
        server = pgserver.get_server(where, cleanup_mode="delete")
    uri = server.get_uri()
    yield uri.replace("postgresql://", "postgresql+psycopg://", 1)
    server.cleanup()


def _fresh_pg_database(base: str) -> str:
    import sqlalchemy as sa

    name = f"tw_{os.getpid()}_{next(_COUNTER)}"
    engine = sa.create_engine(base, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    url = sa.make_url(base).set(database=name)
    return url.render_as_string(hide_password=False)


@pytest.fixture(params=BACKENDS)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty store URL: an SQLite file, or a new database on the PostgreSQL server."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/store.db"
    return _fresh_pg_database(request.getfixturevalue("pg_server"))


@pytest.fixture
def store(store_url: str, tmp_path: Path):
    """An open ``Store`` on ``store_url`` with its own blob directory."""
    from tensorweave_store.store import open_store

    s = open_store(store_url, blobs=str(tmp_path / "blobs"), cached=False)
    yield s
    s.close()
