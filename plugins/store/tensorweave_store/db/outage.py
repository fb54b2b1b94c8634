"""The store out of reach while something runs: which errors say so, and the warning.

A training or a sweep worker must outlive its bookkeeping: when the database goes away (a
server restart, a failover that ends its sessions, a server refusing new connections, a
locked or damaged SQLite file) the recorder keeps what it could not write (``backlog``) and
a sweep worker pauses (``sweeps.pause``). ``is_outage(err)`` tells such an error from a bug:
it looks through the error and what caused it (Optuna and SQLAlchemy wrap the driver's
error) for a connection-level database error or a ``StoreUnreachableError``.

>>> is_outage(StoreUnreachableError("cannot reach the store"))
True
>>> is_outage(ValueError("a bug")), is_outage(RuntimeError("x"))
(False, False)
"""

from __future__ import annotations

import sqlalchemy as sa

from tensorweave_store.db.urls import redact
from tensorweave_store.errors import StoreUnreachableError

__all__ = ["StoreOutageWarning", "is_outage", "reason"]


class StoreOutageWarning(UserWarning):
    """The store could not be reached while recording: what happens to the records."""


def _chain(err: BaseException | None) -> list[BaseException]:
    """``err`` and the errors that caused it (explicit cause, else the one being handled)."""
    out: list[BaseException] = []
    while err is not None and all(err is not seen for seen in out):
        out.append(err)
        err = err.__cause__ or err.__context__
    return out


def _lost(err: BaseException) -> bool:
    if isinstance(err, (StoreUnreachableError, sa.exc.TimeoutError)):
        return True  # our own "cannot reach" and the pool's wait for a connection
    if isinstance(err, sa.exc.DBAPIError):
        return bool(err.connection_invalidated) or isinstance(
            err, (sa.exc.OperationalError, sa.exc.InterfaceError)
        )
    return False


def is_outage(err: BaseException) -> bool:
    """Whether ``err`` (or an error that caused it) says the database cannot be reached or
    used right now, rather than that a statement is wrong."""
    return any(_lost(e) for e in _chain(err))


def reason(err: BaseException) -> str:
    """The first line of the database's own message for ``err`` (no SQL, no traceback)."""
    for e in _chain(err):
        if _lost(e):
            inner = getattr(e, "orig", None) or e
            text = redact(inner).strip()
            return text.splitlines()[0] if text else type(inner).__name__
    text = redact(err).strip()
    return text.splitlines()[0] if text else type(err).__name__
