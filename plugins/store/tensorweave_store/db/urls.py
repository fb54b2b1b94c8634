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
from typing import Any

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
    "SECRET_KEYS",
    "redact_tree",
    "has_secret",
    "config_url",
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


#: query or ``key=value`` names whose value is a secret (``?password=``, libpq's
#: ``sslpassword=``, a ``PGPASSWORD=`` in a message…)
SECRET_KEYS = ("password", "passwd", "pwd", "secret", "token", "sslpassword", "pgpassword")
_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*://)(?P<info>[^/?#\s'\"]*)@")
_KEYS = "|".join(sorted(SECRET_KEYS, key=len, reverse=True))
_SECRET_PARAM = re.compile(
    rf"(?P<key>(?<![A-Za-z0-9_])(?:{_KEYS}))(?P<eq>\s*=\s*)(?P<value>[^&;\s'\",)#]*)",
    re.IGNORECASE,
)
MASK = "***"


def _mask_userinfo(m: re.Match[str]) -> str:
    info = m["info"]
    if ":" not in info:
        return m.group(0)  # a user name alone is no secret
    return f"{m['scheme']}{info.split(':', 1)[0]}:{MASK}@"


def _mask_param(m: re.Match[str]) -> str:
    return f"{m['key']}{m['eq']}{MASK}" if m["value"] else m.group(0)


def redact(text: object) -> str:
    """``text`` (a URL, or any message that may hold one) without its secrets: the
    password of ``user:password@`` and ``:password@`` (no user name), the values of
    ``password=``, ``passwd=``, ``pwd=``, ``secret=``, ``token=``, ``sslpassword=`` (query
    parameters, libpq ``key=value`` strings) and of ``PGPASSWORD=``. Every URL tensorweave
    shows (errors, logs, ``runs show``, sweep output) goes through it.

    >>> redact("postgresql+psycopg://bob:secret@db:5432/x")
    'postgresql+psycopg://bob:***@db:5432/x'
    >>> redact("postgresql://:secret@db/x"), redact("postgresql://bob@db/x?password=secret&a=1")
    ('postgresql://:***@db/x', 'postgresql://bob@db/x?password=***&a=1')
    >>> redact("cannot reach postgresql://u:p@ss@h/db (PGPASSWORD=hunter2 sslpassword=k)")
    'cannot reach postgresql://u:***@h/db (PGPASSWORD=*** sslpassword=***)'
    >>> redact("sqlite:////tmp/runs/tensorweave-store.db")
    'sqlite:////tmp/runs/tensorweave-store.db'
    """
    out = _USERINFO.sub(_mask_userinfo, str(text))
    return _SECRET_PARAM.sub(_mask_param, out)


def redact_tree(value: Any) -> Any:
    """``value`` (a config: mappings, lists, strings) with every string through ``redact``:
    what the store records of a config and ``runs show`` prints hold no secret.

    >>> redact_tree({"a": ["postgresql://u:pw@h/db", 1], "b": "x"})
    {'a': ['postgresql://u:***@h/db', 1], 'b': 'x'}
    """
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, Mapping):
        return {k: redact_tree(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_tree(v) for v in value]
    return value


def config_url(url: str | None, component: str) -> str | None:
    """``url``, a store URL given in a config (``component``'s ``store``); ``StoreError``
    when it holds a password: a config is written to disk (``config.json``) and recorded.

    >>> config_url("postgresql://u@h/db", "store.v1")
    'postgresql://u@h/db'
    """
    if url and has_secret(url):
        from tensorweave_store.errors import StoreError

        raise StoreError(
            f"{component}: the store URL {redact(url)} holds a password, and a config is "
            "written to disk and recorded. Fix: leave the password out of the URL and give it "
            "to the driver (~/.pgpass, PGPASSWORD), or set TENSORWEAVE_STORE / --store."
        )
    return url


def has_secret(url: str) -> bool:
    """Whether ``url`` holds a password or another secret (``redact`` would change it).

    >>> has_secret("postgresql://u@h/db"), has_secret("postgresql://u@h/db?password=p")
    (False, True)
    """
    return redact(url) != url
