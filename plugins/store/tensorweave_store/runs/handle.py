"""``RunHandle``: the write side of one run (epochs, heartbeat, files, final status), which
a lost store never stops.

While a run trains, a daemon thread beats every ``TENSORWEAVE_STORE_HEARTBEAT`` seconds
(default 10) besides the beat of every epoch. When a write finds the store out of reach
(``outage.is_outage``: a server restarting or refusing connections, a locked or damaged
file), training goes on: the handle warns once (``StoreOutageWarning``, naming the store
and where the records go), keeps the record in the run's backlog
(``RUN_DIR/store-backlog.jsonl``) and writes the backlog first at its next write (the next
epoch), when the store is back; the connection pool checks a connection before using it,
so the first write after the outage reconnects. A run that ends with records still kept is
completed later by ``sync_backlog`` (``tensorweave runs sync RUN``).

>>> import tempfile, os
>>> from tensorweave_store.store import open_store
>>> store = open_store(f"sqlite:///{tempfile.mkdtemp()}/s.db")
>>> run = store.start_run({}, name="r", heartbeat=False)
>>> run.log_epoch(0, {"loss": 0.25}); run.finish("finished")
>>> store.run(run.id).status, len(run.backlog)
('finished', 0)
"""

from __future__ import annotations

import datetime as dt
import threading
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from tensorweave_store.db import schema as S
from tensorweave_store.db.outage import StoreOutageWarning, is_outage, reason
from tensorweave_store.db.schema import now
from tensorweave_store.errors import StoreError
from tensorweave_store.protocol import StoreLike
from tensorweave_store.runs.backlog import BACKLOG_FILE, Backlog
from tensorweave_store.runs.records import NO_HEARTBEAT, STATUSES, heartbeat_interval

__all__ = ["RunHandle", "write_record", "sync_backlog"]


class RunHandle:
    """The write side of one run: epochs, heartbeat, artifacts and the final status; what
    the store cannot take now waits in ``backlog`` (in ``run_dir`` when given)."""

    def __init__(self, store: StoreLike, run_id: int, run_dir: str | Path | None = None) -> None:
        self.store = store
        self.id = run_id
        self.run_dir = Path(run_dir) if run_dir is not None else None
        where = self.run_dir / BACKLOG_FILE if self.run_dir is not None else None
        self.backlog = Backlog(where, run_id=run_id, store=store.display_url)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._warned = False
        self.closed = False

    def __repr__(self) -> str:
        return f"RunHandle(id={self.id}, store={self.store.display_url!r})"

    @property
    def engine(self) -> Engine:
        return self.store.engine

    # -- heartbeat ------------------------------------------------------------------------
    def beat(self) -> None:
        """Touch the heartbeat (and revive the run if a reader took it for dead)."""
        with self.engine.begin() as conn:
            conn.execute(sa.update(S.runs).where(S.runs.c.id == self.id).values(heartbeat_at=now()))
            if not self.closed:
                _revive(conn, self.id)

    def start_heartbeat(self, interval: float | None = None) -> None:
        """Beat every ``interval`` seconds from a daemon thread until ``finish``."""
        every = interval if interval is not None else heartbeat_interval()

        def loop() -> None:
            while not self._stop.wait(every):
                try:
                    self.beat()
                except Exception:  # a lost store must not kill training: the epochs say it
                    pass

        self._thread = threading.Thread(
            target=loop, name=f"tw-store-heartbeat-{self.id}", daemon=True
        )
        self._thread.start()

    # -- records --------------------------------------------------------------------------
    def log_epoch(self, epoch: int, values: Mapping[str, Any]) -> None:
        """Record an epoch's values (replacing any earlier record of that epoch, as after a
        resume) and beat the heartbeat, in one transaction; kept in the backlog while the
        store is out of reach."""
        self._record({"op": "epoch", "epoch": int(epoch), "values": dict(values)})

    def add_tags(self, tags: Iterable[str]) -> None:
        """Tag the run (existing tags are kept)."""
        self.store.tag_run(self.id, tags)

    def record_artifacts(self, run_dir: str | Path) -> int:
        """Store the run directory's files in the blob store (the newest checkpoint only);
        returns how many (0 when they wait in the backlog)."""
        done = self._record({"op": "artifacts", "run_dir": str(Path(run_dir).resolve())})
        return done if isinstance(done, int) else 0

    def finish(
        self,
        status: str = "finished",
        *,
        summary: Mapping[str, Any] | None = None,
        error: str | None = None,
    ) -> None:
        """End the run with ``status`` (and its final ``summary`` or ``error``). Records the
        store cannot take stay in the backlog for ``tensorweave runs sync``."""
        if status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {status!r}")
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        record: dict[str, Any] = {"op": "finish", "status": status, "error": error}
        if summary is not None:
            record["summary"] = {k: v for k, v in summary.items() if k != "history"}
        self._record(record)
        self.closed = True
        if self.backlog:
            sync = f"tensorweave runs sync {self.run_dir}" if self.run_dir else None
            warnings.warn(
                f"tensorweave-store: run {self.id} ended while the store {self.store.display_url}"
                f" was out of reach; {len(self.backlog)} record(s) are kept in "
                f"{self.backlog.where()}. "
                + (
                    f"Fix: run `{sync}` once the store is back (until then the run is listed "
                    "as interrupted)."
                    if sync
                    else "They are lost when this process ends."
                ),
                StoreOutageWarning,
                stacklevel=2,
            )

    def _record(self, record: dict[str, Any]) -> Any:
        """Write ``record`` after the backlog, or keep it; returns what the write returned
        (``None`` when kept)."""
        record.setdefault("at", now().isoformat())
        if self.backlog and not self._flush():
            self.backlog.add(record)
            return None
        try:
            return write_record(self.store, self.id, record, live=not self.closed)
        except Exception as err:
            if not is_outage(err):
                raise
            self._lost(err)
            self.backlog.add(record)
            return None

    def _flush(self) -> bool:
        """Write the backlog, oldest first; whether all of it is stored now."""
        pending = list(self.backlog.records)
        count = len(pending)
        try:
            while pending:
                write_record(self.store, self.id, pending[0], live=True)
                pending.pop(0)
        except Exception as err:
            self.backlog.keep(pending)
            if not is_outage(err):
                raise
            return False
        self.backlog.keep([])
        self._warned = False
        warnings.warn(
            f"tensorweave-store: the store {self.store.display_url} is back; recorded the "
            f"{count} record(s) of run {self.id} kept while it was out of reach.",
            StoreOutageWarning,
            stacklevel=4,
        )
        return True

    def _lost(self, err: BaseException) -> None:
        if self._warned:
            return
        self._warned = True
        later = f" or with `tensorweave runs sync {self.run_dir}`" if self.run_dir else ""
        warnings.warn(
            f"tensorweave-store: cannot reach the store {self.store.display_url} "
            f"({reason(err)}); training goes on. Run {self.id}'s records are kept in "
            f"{self.backlog.where()} and recorded when the store is back (at the next "
            f"epoch){later}.",
            StoreOutageWarning,
            stacklevel=4,
        )


def _revive(conn: sa.Connection, run_id: int) -> None:
    """A run marked ``interrupted`` for want of a heartbeat that beats again was only slow
    (a loaded machine, a store out of reach): it is ``running`` again."""
    conn.execute(
        sa.update(S.runs)
        .where(
            S.runs.c.id == run_id, S.runs.c.status == "interrupted", S.runs.c.error == NO_HEARTBEAT
        )
        .values(status="running", error=None, ended_at=None)
    )


def _float(value: Any) -> float | None:
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if out == out else None  # NaN -> NULL (PostgreSQL and SQLite agree)


def write_record(store: StoreLike, run_id: int, record: Mapping[str, Any], *, live: bool) -> Any:
    """Write one record of run ``run_id`` (``op``: ``epoch``, ``artifacts`` or ``finish``),
    dated ``at``; ``live`` (the run's own process, still running) also revives it."""
    op = record["op"]
    at = dt.datetime.fromisoformat(record["at"]) if record.get("at") else now()
    if op == "artifacts":
        return store.record_artifacts(run_id, record["run_dir"])
    with store.engine.begin() as conn:
        if op == "epoch":
            epoch = int(record["epoch"])
            rows = [
                {"run_id": run_id, "epoch": epoch, "name": str(k), "value": _float(v)}
                for k, v in record["values"].items()
            ]
            conn.execute(
                sa.delete(S.metrics).where(S.metrics.c.run_id == run_id, S.metrics.c.epoch == epoch)
            )
            if rows:
                conn.execute(sa.insert(S.metrics), rows)
            conn.execute(
                sa.update(S.runs)
                .where(S.runs.c.id == run_id)
                .values(heartbeat_at=at, epochs_done=epoch + 1)
            )
            if live:
                _revive(conn, run_id)
        elif op == "finish":
            values: dict[str, Any] = {
                "status": record["status"],
                "ended_at": at,
                "heartbeat_at": at,
                "error": record.get("error"),
            }
            if record.get("summary") is not None:
                values["summary"] = record["summary"]
            conn.execute(sa.update(S.runs).where(S.runs.c.id == run_id).values(**values))
        else:
            raise StoreError(f"unknown backlog record {op!r} of run {run_id}")
    return None


def sync_backlog(store: StoreLike, run_dir: str | Path) -> tuple[int, int]:
    """Write the backlog a run left in ``run_dir`` to ``store``; returns (run id, how many
    records). ``(run id, 0)`` when there is none; ``StoreError`` when the backlog belongs to
    another store or run."""
    where = Path(run_dir)
    path = where / BACKLOG_FILE
    run = store.run(str(where.resolve()))
    if not path.exists():
        return run.id, 0
    log = Backlog.read(path)
    if log.run_id != run.id or log.store != store.display_url:
        raise StoreError(
            f"{path} holds records of run {log.run_id} in the store {log.store}, not of run "
            f"{run.id} in {store.display_url}; nothing was written. Fix: sync it with "
            f"--store pointing at {log.store}."
        )
    pending = list(log.records)
    count = len(pending)
    try:
        while pending:
            write_record(store, run.id, pending[0], live=False)
            pending.pop(0)
    finally:
        log.keep(pending)
    return run.id, count
