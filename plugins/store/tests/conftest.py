"""Fixtures: every store test runs on SQLite AND on a real PostgreSQL server.

The server comes from the ``pgserver`` wheel (PostgreSQL binaries, no system set-up), started
once per test session (per xdist worker) in a temporary directory and stopped at the end;
each test gets a fresh database on it. The tests of a store under faults stop and restart a
second server of their own (``pg_faults``). ``twstore_helpers`` starts the real ``tensorweave``
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

from twstore_helpers import PgControl

BACKENDS = ["sqlite", "postgresql"]
_COUNTER = itertools.count()


@pytest.fixture(autouse=True)
def _no_store_selected() -> Iterator[None]:
    """A command run in-process with ``--store URL`` selects that store for the process
    (``urls.select``), as for the one command of a real process: not for the next test."""
    yield
    from tensorweave_store.db.urls import select

    select(None)


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


@pytest.fixture(scope="session")
def pg_faults() -> Iterator[PgControl]:
    """A second PostgreSQL server of the session, for the tests that stop it, restart it or
    make it refuse connections (the others keep ``pg_server``)."""
    import shutil
    import subprocess
    import warnings

    where = tempfile.mkdtemp(prefix="twpgf-")
    os.environ.setdefault("XDG_RUNTIME_DIR", where)
    with warnings.catch_warnings():  # platformdirs: XDG_RUNTIME_DIR unset on CI
        warnings.simplefilter("ignore")
        import pgserver

        server = pgserver.get_server(os.path.join(where, "data"), cleanup_mode="delete")
    control = PgControl(server)
    yield control
    try:  # pgserver stops only the server it started, not one a test restarted
        control.stop()
    except subprocess.CalledProcessError:
        pass  # already stopped
    server.cleanup()
    shutil.rmtree(where, ignore_errors=True)


def _fresh_pg_database(base: str) -> str:
    import sqlalchemy as sa

    name = f"tw_{os.getpid()}_{next(_COUNTER)}"
    engine = sa.create_engine(base, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    url = sa.make_url(base).set(database=name)
    return url.render_as_string(hide_password=False)


@pytest.fixture
def pg_url(pg_server: str) -> str:
    """A fresh, empty database on the session's PostgreSQL server (PostgreSQL-only tests)."""
    return _fresh_pg_database(pg_server)


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
