"""Where the store lives, and how a model reference (``NAME@VERSION``) reads.

The store URL is ``--store URL``, else ``TENSORWEAVE_STORE``, else an SQLite file under the
runs root (``TENSORWEAVE_RUNS``, default ``runs``). ``--store`` on the train pack's commands
reaches ``select`` (through the ``tensorweave_train_options`` hook), which makes it the
process's store until the next command. Light: no SQLAlchemy import.

>>> default_url(runs_root="/tmp/r", env={})
'sqlite:////tmp/r/tensorweave-store.db'
>>> default_url(env={"TENSORWEAVE_STORE": "postgresql+psycopg://u@h/db"})
'postgresql+psycopg://u@h/db'
>>> parse_ref("digits@3"), parse_ref("digits"), parse_ref("digits@production")
(('digits', '3'), ('digits', 'latest'), ('digits', 'production'))
>>> is_model_ref("digits@3"), is_model_ref("runs/a"), is_model_ref("a@b/c")
(True, False, False)
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

__all__ = [
    "STORE_ENV",
    "BLOBS_ENV",
    "RUNS_ENV",
    "DB_NAME",
    "default_url",
    "select",
    "selected",
    "using",
    "runs_root",
    "default_blobs",
    "parse_ref",
    "is_model_ref",
    "redact",
]

STORE_ENV = "TENSORWEAVE_STORE"
BLOBS_ENV = "TENSORWEAVE_STORE_BLOBS"
RUNS_ENV = "TENSORWEAVE_RUNS"
DB_NAME = "tensorweave-store.db"
_selected: str | None = None  # --store URL of the command running in this process
_REF = re.compile(r"^(?P<name>[A-Za-z0-9_.\-]+)@(?P<version>[A-Za-z0-9_.\-]+)$")


def select(url: str | None) -> None:
    """Make ``url`` the store of this process (``--store URL``), as ``TENSORWEAVE_STORE``
    would; ``None`` goes back to the environment.

    >>> select("sqlite:////tmp/x.db"); default_url()
    'sqlite:////tmp/x.db'
    >>> select(None); selected() is None
    True
    """
    global _selected
    _selected = url or None


def selected() -> str | None:
    """The URL ``select`` set (``--store``), if any."""
    return _selected


@contextlib.contextmanager
def using(url: str | None) -> Iterator[None]:
    """``select(url)`` for the ``with`` block (nothing changes when ``url`` is empty), then
    back to the store selected before."""
    before = _selected
    if url:
        select(url)
    try:
        yield
    finally:
        select(before)


def runs_root(env: Mapping[str, str] | None = None) -> Path:
    """The runs root: ``TENSORWEAVE_RUNS`` or ``runs`` (relative to the working directory)."""
    env = os.environ if env is None else env
    return Path(env.get(RUNS_ENV) or "runs")


def default_url(
    url: str | None = None,
    *,
    runs_root: str | Path | None = None,
    env: Mapping[str, str] | None = None,
) -> str:
    """``url`` if given, else ``--store`` (``select``, when ``env`` is the process's), else
    ``TENSORWEAVE_STORE``, else ``sqlite:///<runs root>/tensorweave-store.db``."""
    if url:
        return url
    if env is None and _selected:
        return _selected
    env = os.environ if env is None else env
    if env.get(STORE_ENV):
        return env[STORE_ENV]
    root = Path(runs_root) if runs_root is not None else globals()["runs_root"](env)
    return f"sqlite:///{(root / DB_NAME).as_posix()}"


def default_blobs(url: str, env: Mapping[str, str] | None = None) -> str:
    """Where blobs go: ``TENSORWEAVE_STORE_BLOBS``, else beside an SQLite file
    (``<db>.blobs``), else ``<runs root>/tensorweave-store.blobs``."""
    env = os.environ if env is None else env
    if env.get(BLOBS_ENV):
        return env[BLOBS_ENV]
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        db = Path(url[len("sqlite:///") :])
        return str(db.with_suffix(".blobs"))
    return str(runs_root(env) / "tensorweave-store.blobs")


def parse_ref(ref: str) -> tuple[str, str]:
    """``NAME@VERSION`` -> ``(name, version)``; a bare name means ``latest``."""
    name, _, version = ref.partition("@")
    return name, version or "latest"


def is_model_ref(ref: str) -> bool:
    """Whether ``ref`` reads as ``NAME@VERSION`` (not a path)."""
    return bool(_REF.match(str(ref)))


def redact(url: str) -> str:
    """``url`` without its password, for messages.

    >>> redact("postgresql+psycopg://bob:secret@db:5432/x")
    'postgresql+psycopg://bob:***@db:5432/x'
    """
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", url)
