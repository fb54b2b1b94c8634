"""Helpers of the store tests: a process recording into a test store, and a PostgreSQL
server the tests stop and restart."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["store_env", "tensorweave", "digits_args", "PgControl", "SWEEP_TINY"]

_COUNTER = itertools.count()


def store_env(store_url: str | None, tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment of a process that records into ``store_url``, with its runs root,
    blobs and caches under ``tmp_path``; ``None``: a "host" of its own that inherits no
    ``TENSORWEAVE_*`` variable (its command's ``--store`` names the store)."""
    env = {k: v for k, v in os.environ.items() if store_url or not k.startswith("TENSORWEAVE_")}
    env.update(
        TENSORWEAVE_STORE_BLOBS=str(tmp_path / "blobs"),
        TENSORWEAVE_STORE_CACHE=str(tmp_path / "cache"),
        TENSORWEAVE_RUNS=str(tmp_path / "runs"),
        TF_CPP_MIN_LOG_LEVEL="3",
        CUDA_VISIBLE_DEVICES="-1",
        **extra,
    )
    if store_url:
        env["TENSORWEAVE_STORE"] = store_url
    return env


#: a sweep's trials small enough for tests (2 epochs of 300 digits)
SWEEP_TINY = [
    "--train.epochs=2",
    "--data.limit=300",
    "--data.workers=0",
    "--dims.hidden=16",
    "--train.batch_size=64",
]


def tensorweave(args: Sequence[str], env: dict[str, str], cwd: Path, **kw) -> subprocess.Popen:
    """Start the real ``tensorweave`` command (``python -m tensorweave.cli``)."""
    script = Path(sys.executable).with_name("tensorweave")
    return subprocess.Popen(
        [str(script), *args],
        env=env,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kw,
    )


def digits_args(name: str, run_dir: Path, *more: str) -> list[str]:
    """A quick digits job: 2 small epochs."""
    return [
        "train",
        "--quiet",
        f"--run-dir={run_dir}",
        f"--run.name={name}",
        "--train.epochs=2",
        "--train.limit=300",
        "--dims.hidden=16",
        *more,
    ]


class PgControl:
    """A PostgreSQL server of the test session that tests may stop, restart, and make
    refuse connections (``pgserver``'s own ``pg_ctl``; the URL stays the same)."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self.base = server.get_uri().replace("postgresql://", "postgresql+psycopg://", 1)

    def fresh_database(self) -> str:
        """A new, empty database: its SQLAlchemy URL."""
        import sqlalchemy as sa

        name = f"twf_{os.getpid()}_{next(_COUNTER)}"
        self._admin(f'CREATE DATABASE "{name}"')
        return sa.make_url(self.base).set(database=name).render_as_string(hide_password=False)

    def stop(self) -> None:
        """Stop the server as a restart or a failover does: its sessions are ended."""
        import pgserver

        pgserver.pg_ctl(
            ["-w", "-m", "fast", "stop"], pgdata=self.server.pgdata, user=self.server.system_user
        )

    def start(self) -> None:
        """Start it again where it was (same socket, same URL)."""
        import pgserver

        log = str(self.server.pgdata / "log")
        pgserver.pg_ctl(
            ["-w", "-l", log, "restart"],
            pgdata=self.server.pgdata,
            user=self.server.system_user,  # pgserver runs the server as its own user under root
            timeout=60,
        )

    def ensure_running(self) -> None:
        """Start the server if a test left it stopped."""
        import subprocess

        import pgserver

        try:
            pgserver.pg_ctl(["status"], pgdata=self.server.pgdata, user=self.server.system_user)
        except subprocess.CalledProcessError:
            self.start()

    def refuse(self, url: str) -> None:
        """The database of ``url`` refuses new connections and its sessions are ended; the
        server stays up."""
        import sqlalchemy as sa

        name = sa.make_url(url).database
        self._admin(f'ALTER DATABASE "{name}" WITH ALLOW_CONNECTIONS false')
        self._admin(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            f"WHERE datname = '{name}' AND pid <> pg_backend_pid()"
        )

    def admit(self, url: str) -> None:
        """Undo ``refuse``."""
        import sqlalchemy as sa

        name = sa.make_url(url).database
        self._admin(f'ALTER DATABASE "{name}" WITH ALLOW_CONNECTIONS true')

    def _admin(self, sql: str) -> None:
        import sqlalchemy as sa

        engine = sa.create_engine(self.base, isolation_level="AUTOCOMMIT", poolclass=sa.NullPool)
        try:
            with engine.connect() as conn:
                conn.execute(sa.text(sql))
        finally:
            engine.dispose()
