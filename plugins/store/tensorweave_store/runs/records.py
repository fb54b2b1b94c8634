"""A run as stored: ``RunRecord`` (the read-only view a query returns), its statuses, the
heartbeat interval, the providers of a config's components, and the queries that read runs
back (``Store`` delegates here).

A run row holds the filled config, the provider (distribution and version) of every
component in it, the library versions, the status (``running``, ``finished``, ``failed``,
``interrupted``) and a heartbeat. ``runs.handle.RunHandle`` writes it; ``list_runs`` and
``get_run`` read it back as ``RunRecord``\\s.

A ``running`` run whose heartbeat is older than three of its intervals died without saying
so (a ``kill -9``, a lost machine) and is reported, then stored, as ``interrupted``.

>>> providers_of({"opt": {"@optimizers": "Adam.v1", "@provider": "tensorweave-train 0.1.0"}})
{'opt': {'component': 'optimizers:Adam.v1', 'provider': 'tensorweave-train 0.1.0'}}
"""

from __future__ import annotations

import datetime as dt
import os
import socket
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from tensorweave_store.db import schema as S
from tensorweave_store.db.schema import now
from tensorweave_store.db.schema import utc as _utc
from tensorweave_store.db.urls import redact_tree
from tensorweave_store.errors import RunNotFoundError
from tensorweave_store.runs.filters import Condition, flatten, parse_condition

__all__ = [
    "RunRecord",
    "STATUSES",
    "HEARTBEAT_ENV",
    "NO_HEARTBEAT",
    "heartbeat_interval",
    "providers_of",
    "insert_run",
    "reopen_run",
    "reap",
    "list_runs",
    "get_run",
    "run_metrics",
]

STATUSES = ("running", "finished", "failed", "interrupted")
HEARTBEAT_ENV = "TENSORWEAVE_STORE_HEARTBEAT"
NO_HEARTBEAT = "no heartbeat: the process died or lost the store"


def heartbeat_interval() -> float:
    """Seconds between heartbeats (``TENSORWEAVE_STORE_HEARTBEAT``, default 10)."""
    return float(os.environ.get(HEARTBEAT_ENV) or 10.0)


def providers_of(config: Any, path: str = "") -> dict[str, dict[str, str]]:
    """``{dotted path: {"component": "kind:name", "provider": "dist version"}}`` for every
    component of a filled config."""
    out: dict[str, dict[str, str]] = {}
    if isinstance(config, Mapping):
        kind = next(
            (
                k
                for k in config
                if isinstance(k, str) and k.startswith("@") and k not in ("@provider", "@versions")
            ),
            None,
        )
        if kind is not None and "@provider" in config:
            out[path or "."] = {
                "component": f"{kind[1:]}:{config[kind]}",
                "provider": str(config["@provider"]),
            }
        for key, value in config.items():
            out.update(providers_of(value, f"{path}.{key}" if path else str(key)))
    elif isinstance(config, list):
        for i, value in enumerate(config):
            out.update(providers_of(value, f"{path}.{i}" if path else str(i)))
    return out


@dataclass
class RunRecord:
    """A run as stored (read-only view)."""

    id: int
    name: str
    run_dir: str | None
    kind: str
    status: str
    config: dict[str, Any]
    providers: dict[str, Any]
    versions: dict[str, Any]
    summary: dict[str, Any] | None
    error: str | None
    host: str | None
    pid: int | None
    epochs_done: int
    created_at: dt.datetime
    heartbeat_at: dt.datetime
    ended_at: dt.datetime | None
    tags: list[str] = field(default_factory=list)
    last_values: dict[str, float] = field(default_factory=dict)

    @property
    def figures(self) -> dict[str, float]:
        """The run's final figures: its last epoch's values, then the final evaluation on
        the validation data as ``val_<name>``."""
        out = dict(self.last_values)
        for key, value in ((self.summary or {}).get("valid") or {}).items():
            out[f"val_{key}"] = value
        return out

    def values(self) -> dict[str, Any]:
        """Everything a filter can test: fields, figures and dotted config paths."""
        out: dict[str, Any] = flatten(self.config)
        out.update(
            id=self.id, name=self.name, status=self.status, kind=self.kind, run_dir=self.run_dir
        )
        out.update(self.figures)
        return out

    def matches(self, conditions: Iterable[Condition]) -> bool:
        values = self.values()
        return all(c.holds(values) for c in conditions)


# -- the store's run queries (Store delegates here) ------------------------------------------
def insert_run(
    engine: Engine,
    config: Mapping[str, Any],
    *,
    name: str,
    run_dir: str | None,
    kind: str,
    tags: Sequence[str],
) -> int:
    cfg = redact_tree(dict(config))  # a URL's password in a config is not recorded
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
