"""Run records: write one as training goes (``RunHandle``), query them back (``RunRecord``\\s,
defined with the statuses and ``providers_of`` in ``run_record``; importable from here too).

While a run trains, a daemon thread beats every
``TENSORWEAVE_STORE_HEARTBEAT`` seconds (default 10) besides the beat of every epoch; a
``running`` run whose heartbeat is older than three of its intervals died without saying so (a
``kill -9``, a lost machine) and is reported, then stored, as ``interrupted``.

>>> providers_of({"opt": {"@optimizers": "Adam.v1", "@provider": "tensorweave-train 0.1.0"}})
{'opt': {'component': 'optimizers:Adam.v1', 'provider': 'tensorweave-train 0.1.0'}}
"""

from __future__ import annotations

import datetime as dt
import os
import socket
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from tensorweave_store import schema as S
from tensorweave_store.errors import RunNotFoundError
from tensorweave_store.filters import Condition, parse_condition
from tensorweave_store.run_record import (
    HEARTBEAT_ENV,
    NO_HEARTBEAT,
    STATUSES,
    RunRecord,
    heartbeat_interval,
    now,
    providers_of,
)
from tensorweave_store.run_record import utc as _utc

__all__ = [
    "RunRecord",
    "RunHandle",
    "STATUSES",
    "HEARTBEAT_ENV",
    "heartbeat_interval",
    "providers_of",
    "now",
]


class RunHandle:
    """The write side of one run: epochs, heartbeat, artifacts and the final status."""

    def __init__(self, store: Any, run_id: int) -> None:
        self.store = store
        self.id = run_id
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
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
            self._revive(conn)

    def _revive(self, conn: sa.Connection) -> None:
        """A run marked ``interrupted`` for want of a heartbeat that beats again was only
        slow (a loaded machine): it is ``running`` again."""
        if self.closed:
            return
        conn.execute(
            sa.update(S.runs)
            .where(
                S.runs.c.id == self.id,
                S.runs.c.status == "interrupted",
                S.runs.c.error == NO_HEARTBEAT,
            )
            .values(status="running", error=None, ended_at=None)
        )

    def start_heartbeat(self, interval: float | None = None) -> None:
        """Beat every ``interval`` seconds from a daemon thread until ``finish``."""
        every = interval if interval is not None else heartbeat_interval()

        def loop() -> None:
            while not self._stop.wait(every):
                try:
                    self.beat()
                except Exception:  # a transient database error must not kill training
                    pass

        self._thread = threading.Thread(
            target=loop, name=f"tw-store-heartbeat-{self.id}", daemon=True
        )
        self._thread.start()

    # -- records --------------------------------------------------------------------------
    def log_epoch(self, epoch: int, values: Mapping[str, Any]) -> None:
        """Record an epoch's values (replacing any earlier record of that epoch, as after a
        resume) and beat the heartbeat, in one transaction."""
        rows = [
            {"run_id": self.id, "epoch": int(epoch), "name": str(k), "value": _float(v)}
            for k, v in values.items()
        ]
        with self.engine.begin() as conn:
            conn.execute(
                sa.delete(S.metrics).where(
                    S.metrics.c.run_id == self.id, S.metrics.c.epoch == int(epoch)
                )
            )
            if rows:
                conn.execute(sa.insert(S.metrics), rows)
            conn.execute(
                sa.update(S.runs)
                .where(S.runs.c.id == self.id)
                .values(heartbeat_at=now(), epochs_done=int(epoch) + 1)
            )
            self._revive(conn)

    def add_tags(self, tags: Iterable[str]) -> None:
        """Tag the run (existing tags are kept)."""
        self.store.tag_run(self.id, tags)

    def record_artifacts(self, run_dir: str | Path) -> int:
        """Store the run directory's files in the blob store (the newest checkpoint only);
        returns how many."""
        return self.store.record_artifacts(self.id, run_dir)

    def finish(
        self,
        status: str = "finished",
        *,
        summary: Mapping[str, Any] | None = None,
        error: str | None = None,
    ) -> None:
        """End the run with ``status`` (and its final ``summary`` or ``error``)."""
        if status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {status!r}")
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        values: dict[str, Any] = {"status": status, "ended_at": now(), "heartbeat_at": now()}
        if summary is not None:
            values["summary"] = {k: v for k, v in summary.items() if k != "history"}
        if error is not None:
            values["error"] = error
        with self.engine.begin() as conn:
            conn.execute(sa.update(S.runs).where(S.runs.c.id == self.id).values(**values))
        self.closed = True


def _float(value: Any) -> float | None:
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if out == out else None  # NaN -> NULL (PostgreSQL and SQLite agree)


# -- the store's run queries (Store delegates here) -------------------------------------------
def insert_run(
    engine: Engine,
    config: Mapping[str, Any],
    *,
    name: str,
    run_dir: str | None,
    kind: str,
    tags: Sequence[str],
) -> int:
    cfg = dict(config)
    stamp = now()
    row = {
        "name": name,
        "run_dir": run_dir,
        "kind": kind,
        "status": "running",
        "config": cfg,
        "providers": providers_of(cfg),
        "versions": dict(cfg.get("@versions") or {}),
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "epochs_done": 0,
        "created_at": stamp,
        "heartbeat_at": stamp,
        "summary": {"heartbeat_every": heartbeat_interval()},
    }
    with engine.begin() as conn:
        inserted = conn.execute(sa.insert(S.runs).values(**row)).inserted_primary_key
        assert inserted is not None  # an INSERT of one row always has its key
        run_id = int(inserted[0])
        if tags:
            conn.execute(sa.insert(S.run_tags), [{"run_id": run_id, "tag": t} for t in set(tags)])
    return run_id


def reopen_run(engine: Engine, run_id: int, kind: str) -> None:
    """Mark an existing run as running again (a resume)."""
    with engine.begin() as conn:
        conn.execute(
            sa.update(S.runs)
            .where(S.runs.c.id == run_id)
            .values(
                summary={"heartbeat_every": heartbeat_interval()},
                status="running",
                kind=kind,
                heartbeat_at=now(),
                ended_at=None,
                error=None,
                pid=os.getpid(),
                host=socket.gethostname(),
            )
        )


def reap(engine: Engine, *, stale_after: float | None = None) -> list[int]:
    """Mark ``running`` runs with a stale heartbeat as ``interrupted``; returns their ids.

    Stale means older than three of the run's own heartbeat intervals (recorded when it
    started), or ``stale_after`` seconds when given."""
    moment = now()
    with engine.begin() as conn:
        rows = conn.execute(
            sa.select(S.runs.c.id, S.runs.c.heartbeat_at, S.runs.c.summary).where(
                S.runs.c.status == "running"
            )
        ).all()
        ids = []
        for run_id, beat, summary in rows:
            every = (summary or {}).get("heartbeat_every") or heartbeat_interval()
            limit = stale_after if stale_after is not None else 3 * float(every)
            if moment - _utc(beat) > dt.timedelta(seconds=limit):  # type: ignore[operator]
                ids.append(int(run_id))
        if ids:
            conn.execute(
                sa.update(S.runs)
                .where(S.runs.c.id.in_(ids), S.runs.c.status == "running")
                .values(
                    status="interrupted",
                    ended_at=now(),
                    error=NO_HEARTBEAT,
                )
            )
    return ids


def _records(conn: sa.Connection, rows: Sequence[Any]) -> list[RunRecord]:
    ids = [r.id for r in rows]
    tags: dict[int, list[str]] = {i: [] for i in ids}
    last: dict[int, dict[str, float]] = {i: {} for i in ids}
    if ids:
        for run_id, tag in conn.execute(
            sa.select(S.run_tags.c.run_id, S.run_tags.c.tag).where(S.run_tags.c.run_id.in_(ids))
        ):
            tags[run_id].append(tag)
        top = (
            sa.select(S.metrics.c.run_id, sa.func.max(S.metrics.c.epoch).label("epoch"))
            .where(S.metrics.c.run_id.in_(ids))
            .group_by(S.metrics.c.run_id)
            .subquery()
        )
        q = sa.select(S.metrics.c.run_id, S.metrics.c.name, S.metrics.c.value).join(
            top, sa.and_(S.metrics.c.run_id == top.c.run_id, S.metrics.c.epoch == top.c.epoch)
        )
        for run_id, name, value in conn.execute(q):
            if value is not None:
                last[run_id][name] = value
    return [
        RunRecord(
            id=r.id,
            name=r.name,
            run_dir=r.run_dir,
            kind=r.kind,
            status=r.status,
            config=r.config or {},
            providers=r.providers or {},
            versions=r.versions or {},
            summary=r.summary,
            error=r.error,
            host=r.host,
            pid=r.pid,
            epochs_done=r.epochs_done,
            created_at=_utc(r.created_at),  # type: ignore[arg-type]
            heartbeat_at=_utc(r.heartbeat_at),  # type: ignore[arg-type]
            ended_at=_utc(r.ended_at),
            tags=sorted(tags[r.id]),
            last_values=last[r.id],
        )
        for r in rows
    ]


def list_runs(
    engine: Engine,
    *,
    where: Iterable[str | Condition] = (),
    tags: Iterable[str] = (),
    status: str | None = None,
    name: str | None = None,
    limit: int | None = None,
) -> list[RunRecord]:
    """Runs, newest first, that have every tag in ``tags`` and meet every condition."""
    conditions = [c if isinstance(c, Condition) else parse_condition(c) for c in where]
    q = sa.select(S.runs).order_by(S.runs.c.id.desc())
    for tag in set(tags):
        q = q.where(sa.exists().where(S.run_tags.c.run_id == S.runs.c.id, S.run_tags.c.tag == tag))
    if status:
        q = q.where(S.runs.c.status == status)
    if name:
        q = q.where(S.runs.c.name == name)
    with engine.connect() as conn:
        records = _records(conn, conn.execute(q).all())
    out = [r for r in records if r.matches(conditions)]
    return out[:limit] if limit else out


def get_run(engine: Engine, ref: int | str) -> RunRecord:
    """A run by id, by run directory, or by name (the newest of that name)."""
    text = str(ref)
    with engine.connect() as conn:
        q = None
        if text.isdigit():
            q = sa.select(S.runs).where(S.runs.c.id == int(text))
        rows = conn.execute(q).all() if q is not None else []
        if not rows:
            candidates = {text, str(Path(text)), str(Path(text).resolve())}
            rows = conn.execute(
                sa.select(S.runs)
                .where(sa.or_(S.runs.c.run_dir.in_(candidates), S.runs.c.name == text))
                .order_by(S.runs.c.id.desc())
                .limit(1)
            ).all()
        if not rows:
            raise RunNotFoundError(
                f"no run {text!r} in the store. Fix: give a run id, run directory or name from "
                "`tensorweave runs list`."
            )
        return _records(conn, rows)[0]


def run_metrics(engine: Engine, run_id: int) -> dict[str, list[tuple[int, float]]]:
    """``{name: [(epoch, value), …]}`` for one run, by epoch."""
    out: dict[str, list[tuple[int, float]]] = {}
    with engine.connect() as conn:
        for epoch, name, value in conn.execute(
            sa.select(S.metrics.c.epoch, S.metrics.c.name, S.metrics.c.value)
            .where(S.metrics.c.run_id == run_id)
            .order_by(S.metrics.c.epoch)
        ):
            if value is not None:
                out.setdefault(name, []).append((epoch, value))
    return out
