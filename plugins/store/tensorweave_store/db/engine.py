"""Open a store database: an engine that reaches it, at the newest schema.

``connect(url)`` makes the SQLAlchemy engine (SQLite: WAL journal, a 60 s busy timeout and
``BEGIN IMMEDIATE`` transactions so that two processes writing at once wait for each other
instead of failing; PostgreSQL: a pool that checks a connection before using it, so a
restarted server costs no error, and a 10 s connect timeout), checks it can be reached
(``StoreUnreachableError`` otherwise, also for an SQLite file that is damaged or not a
database: it names the file, which is left as it was) and runs the Alembic migrations up to
this package's head under a lock (a file lock for SQLite, an advisory lock for PostgreSQL),
so two processes opening a fresh store at once do not race. A database already at a revision this
package does not know was written by a newer tensorweave-store: ``SchemaTooNewError``, and
nothing is touched.

>>> import tempfile, os
>>> eng = connect("sqlite:///" + os.path.join(tempfile.mkdtemp(), "s.db"))
>>> revision(eng)
'0003'
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Engine

from tensorweave_store.db.schema import HEAD
from tensorweave_store.db.urls import SECRET_KEYS, redact
from tensorweave_store.errors import SchemaTooNewError, StoreUnreachableError

__all__ = [
    "connect",
    "migrate",
    "revision",
    "known_revisions",
    "split_secrets",
    "safe_cause",
    "VERSION_TABLE",
]

VERSION_TABLE = "tw_alembic_version"
_PG_LOCK_KEY = 0x7477_5354  # "twST": the advisory lock serialising migrations
_CONNECT_TIMEOUT = 10  # seconds to reach a PostgreSQL server before it counts as out of reach


def _alembic_config(connection: sa.Connection) -> Any:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option(
        "script_location", str(resources.files("tensorweave_store.db") / "migrations")
    )
    cfg.set_main_option("version_table", VERSION_TABLE)
    cfg.attributes["connection"] = connection
    return cfg


def known_revisions() -> list[str]:
    """Every revision this package ships, oldest first."""
    from alembic.script import ScriptDirectory

    script = ScriptDirectory(str(resources.files("tensorweave_store.db") / "migrations"))
    return [r.revision for r in reversed(list(script.walk_revisions()))]


def revision(engine: Engine) -> str | None:
    """The database's schema revision (``None`` for an empty database)."""
    with engine.connect() as conn:
        if not sa.inspect(conn).has_table(VERSION_TABLE):
            return None
        return conn.execute(sa.text(f"SELECT version_num FROM {VERSION_TABLE}")).scalar()


def _sqlite_path(url: sa.URL) -> Path | None:
    db = url.database
    return Path(db) if db and db != ":memory:" else None


def split_secrets(url: str) -> tuple[str, dict[str, Any]]:
    """``url`` without its secrets, and the driver's connect arguments that carry them.

    The password (of ``user:password@`` or ``?password=``) and the other secret query
    parameters (``sslpassword=``, ``token=``…) go to the driver as connect arguments, so that
    the URL an engine or an Optuna storage keeps, and shows in its ``repr`` or its errors,
    holds none. SQLite URLs have no secrets and come back as they are.

    >>> split_secrets("postgresql+psycopg://bob:pw@h/db?sslpassword=k&sslmode=require")
    ('postgresql+psycopg://bob@h/db?sslmode=require', {'sslpassword': 'k', 'password': 'pw'})
    >>> split_secrets("sqlite:///runs/tensorweave-store.db")
    ('sqlite:///runs/tensorweave-store.db', {})
    """
    parsed = sa.make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return url, {}
    if "@" in (parsed.host or ""):  # the driver would show the rest of the password as host
        raise ValueError(
            "the part before the host holds an unescaped '@' (a password with '@' in it?); "
            "write it as %40"
        )
    secrets: dict[str, Any] = {}
    query = dict(parsed.query)
    for key in list(query):
        if key.lower() in SECRET_KEYS:
            value = query.pop(key)
            secrets["password" if key.lower() in ("passwd", "pwd") else key] = (
                value[-1] if isinstance(value, tuple) else value
            )
    if parsed.password or (parsed.password is not None and "password" not in secrets):
        secrets["password"] = parsed.password
    bare = sa.URL.create(  # URL.set(password=None) would keep the password
        parsed.drivername,
        username=parsed.username,
        host=parsed.host,
        port=parsed.port,
        database=parsed.database,
        query=query,
    )
    return bare.render_as_string(hide_password=False), secrets


def safe_cause(err: BaseException) -> BaseException | None:
    """``err`` to chain (``raise ... from``) when its message holds no secret, else ``None``
    (the message re-raised has gone through ``redact``)."""
    return err if redact(str(err)) == str(err) else None


def _make_engine(url: str) -> Engine:
    bare, secrets = split_secrets(url)
    parsed = sa.make_url(bare)
    if parsed.get_backend_name() == "sqlite":
        path = _sqlite_path(parsed)
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as err:
                raise StoreUnreachableError(
                    f"cannot create the directory of the store {redact(url)}: {redact(err)}. Fix: point "
                    "TENSORWEAVE_STORE (or --store) at a writable path."
                ) from err
        engine = sa.create_engine(parsed, connect_args={"timeout": 60})

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_conn: Any, _record: Any) -> None:
            dbapi_conn.isolation_level = None  # we issue BEGIN ourselves
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA busy_timeout=60000")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        @event.listens_for(engine, "begin")
        def _on_begin(conn: sa.Connection) -> None:
            conn.exec_driver_sql("BEGIN IMMEDIATE")

        @event.listens_for(engine, "handle_error")
        def _on_error(context: sa.engine.ExceptionContext) -> None:
            _damaged_file(context.original_exception, path)

        return engine
    connect_args = dict(secrets)  # the password reaches the driver, never the engine's URL
    if parsed.get_backend_name() == "postgresql" and "connect_timeout" not in parsed.query:
        connect_args["connect_timeout"] = _CONNECT_TIMEOUT  # a host that went away: not minutes
    # pre-ping: a pooled connection whose server restarted is replaced before it is used
    return sa.create_engine(parsed, pool_pre_ping=True, connect_args=connect_args)


def _damaged_file(error: BaseException, path: Path | None) -> None:
    """Raise ``StoreUnreachableError`` naming the file and the fix when SQLite says the store
    file is not a database or is malformed (nothing is written to it)."""
    import sqlite3

    if not isinstance(error, sqlite3.DatabaseError) or isinstance(error, sqlite3.OperationalError):
        return
    where = str(path) if path is not None else "the in-memory store"
    raise StoreUnreachableError(
        f"the store file {where} is damaged or not a store ({error}); nothing was written to "
        f"it. Fix: move it aside (mv {where} {where}.damaged) and run again to start a new, "
        "empty store there, or restore it from a backup, or point TENSORWEAVE_STORE / --store "
        "at another store."
    ) from error


@contextlib.contextmanager
def _migration_lock(engine: Engine) -> Iterator[sa.Connection]:
    """A connection holding the store-wide migration lock."""
    if engine.dialect.name == "sqlite":
        path = _sqlite_path(engine.url)
        lock = open(f"{path}.lock", "a+") if path is not None else None  # noqa: SIM115
        try:
            if lock is not None:
                import fcntl

                fcntl.flock(lock, fcntl.LOCK_EX)
            with engine.begin() as conn:
                yield conn
        finally:
            if lock is not None:
                lock.close()
    else:
        with engine.begin() as conn:
            if engine.dialect.name == "postgresql":
                conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_LOCK_KEY})
            yield conn


def migrate(engine: Engine, target: str = "head") -> str:
    """Bring the schema to ``target`` (default: this package's newest); returns the
    revision. Raises ``SchemaTooNewError`` for a database from a newer package."""
    from alembic import command

    known = known_revisions()
    with _migration_lock(engine) as conn:
        current = None
        if sa.inspect(conn).has_table(VERSION_TABLE):
            current = conn.execute(sa.text(f"SELECT version_num FROM {VERSION_TABLE}")).scalar()
        if current is not None and current not in known:
            from tensorweave_store import __version__

            raise SchemaTooNewError(
                f"the store {redact(str(engine.url))} has schema revision {current!r}, newer than "
                f"this tensorweave-store {__version__} knows (up to {known[-1]!r}); nothing was "
                "changed. Fix: upgrade the pack (pip install -U tensorweave-store) on this "
                "machine, or point TENSORWEAVE_STORE / --store at another store."
            )
        wanted = known[-1] if target == "head" else target
        if current != wanted:
            command.upgrade(_alembic_config(conn), target)
    return wanted


def connect(url: str, *, upgrade: bool = True) -> Engine:
    """An engine for ``url`` that has been reached, with the schema migrated to the head."""
    try:
        engine = _make_engine(url)
    except (sa.exc.ArgumentError, sa.exc.NoSuchModuleError, ImportError, ValueError) as err:
        raise StoreUnreachableError(
            f"cannot use the store URL {redact(url)}: {redact(err)}. Fix: give a URL like "
            "sqlite:///runs/tensorweave-store.db or postgresql+psycopg://USER@HOST/DB "
            "(pip install 'tensorweave-store[postgresql]' for the driver)."
        ) from safe_cause(err)
    try:
        if upgrade:
            migrate(engine)
        else:
            with engine.connect():
                pass
    except sa.exc.DBAPIError as err:  # refused, bad port, bad option, wrong password…
        engine.dispose()
        reason = str(err.orig if err.orig is not None else err).strip().splitlines()[0]
        raise StoreUnreachableError(
            f"cannot reach the store {redact(url)}: {redact(reason)}. Fix: start the database "
            "server or correct TENSORWEAVE_STORE / --store (unset it to use the local SQLite "
            "file runs/tensorweave-store.db); nothing was recorded."
        ) from safe_cause(err)
    return engine


def schema_head() -> str:
    """The revision this package writes (``schema.HEAD``)."""
    return HEAD


if os.name != "posix":  # pragma: no cover - fcntl is POSIX only
    raise ImportError("tensorweave-store's SQLite locking needs a POSIX system")
