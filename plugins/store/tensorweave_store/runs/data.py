"""Which files a run read, in the store: its data manifest, each file's path, size and sha256.

A run of a file dataset writes ``data_manifest.json`` in its run directory (the data pack's
``tensorweave_data.files.manifest``); when the store records the run's files it records the
manifest too. A set of files is stored once, keyed by its own sha256 (of its files' sorted
``(path, size, sha256)``): a hundred runs on the same 50,000 images add a hundred rows to
``tw_run_data`` and one manifest. A run on data held in memory has no manifest and records
none.

>>> import tempfile, os
>>> from tensorweave_store.store import open_store
>>> store = open_store(f"sqlite:///{tempfile.mkdtemp()}/s.db")
>>> files = [{"path": "/data/a.png", "size": 3, "sha256": "ab" * 32}]
>>> runs = [store.start_run({}, name=f"r{i}", heartbeat=False) for i in range(2)]
>>> keys = {record(store.engine, r.id, {"files": files}) for r in runs}
>>> len(keys), of_run(store.engine, runs[0].id).count, runs_reading(store.engine, "/data/a.png")
(1, 1, [2, 1])
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from tensorweave_store.db import schema as S

__all__ = [
    "MANIFEST_FILE",
    "DataRecord",
    "manifest_key",
    "record",
    "record_run_dir",
    "of_run",
    "runs_reading",
]

#: the file a run directory keeps its data manifest in (the data pack's ``MANIFEST_FILE``)
MANIFEST_FILE = "data_manifest.json"


@dataclass(frozen=True)
class DataRecord:
    """A run's recorded data: the manifest's ``sha256``, and its files (``path``, ``size``,
    ``sha256`` dicts, by path)."""

    sha256: str
    count: int
    bytes: int
    files: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The manifest in the data pack's JSON form (``tensorweave_data`` ``Manifest``)."""
        return {"format": 1, "count": self.count, "bytes": self.bytes, "files": self.files}


def _entries(manifest: Mapping[str, Any]) -> list[dict[str, Any]]:
    try:
        rows = {
            str(f["path"]): {
                "path": str(f["path"]),
                "size": int(f["size"]),
                "sha256": str(f["sha256"]),
            }
            for f in manifest["files"]
        }
    except (KeyError, TypeError, ValueError) as err:
        raise ValueError(
            f"not a data manifest (each file needs path, size, sha256): {err}"
        ) from err
    return [rows[p] for p in sorted(rows)]


def manifest_key(manifest: Mapping[str, Any]) -> str:
    """The sha256 that names a set of files: of its sorted ``(path, size, sha256)``."""
    text = json.dumps([[f["path"], f["size"], f["sha256"]] for f in _entries(manifest)])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def record(engine: Engine, run_id: int, manifest: Mapping[str, Any]) -> str:
    """Record that run ``run_id`` read the files of ``manifest`` (the JSON of
    ``data_manifest.json``); the file set is stored once. Returns its sha256."""
    files = _entries(manifest)
    key = manifest_key(manifest)
    for attempt in (0, 1):
        try:
            with engine.begin() as conn:
                known = conn.execute(
                    sa.select(S.data_manifests.c.sha256).where(S.data_manifests.c.sha256 == key)
                ).first()
                if known is None:
                    conn.execute(
                        sa.insert(S.data_manifests).values(
                            sha256=key,
                            files=len(files),
                            bytes=sum(f["size"] for f in files),
                            created_at=S.now(),
                        )
                    )
                    if files:
                        conn.execute(
                            sa.insert(S.manifest_files), [{"manifest": key, **f} for f in files]
                        )
                conn.execute(sa.delete(S.run_data).where(S.run_data.c.run_id == run_id))
                conn.execute(sa.insert(S.run_data).values(run_id=run_id, manifest=key))
            return key
        except IntegrityError:  # another process stored the same file set just now
            if attempt:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def record_run_dir(engine: Engine, run_id: int, run_dir: str | Path) -> str | None:
    """Record ``run_dir/data_manifest.json`` for run ``run_id``; ``None`` (nothing recorded)
    when the run kept none (its data is held in memory)."""
    path = Path(run_dir) / MANIFEST_FILE
    if not path.is_file():
        return None
    return record(engine, run_id, json.loads(path.read_text(encoding="utf-8")))


def of_run(engine: Engine, run_id: int) -> DataRecord | None:
    """The data run ``run_id`` read, or ``None`` when it recorded none."""
    with engine.connect() as conn:
        head = conn.execute(
            sa.select(S.data_manifests)
            .join(S.run_data, S.run_data.c.manifest == S.data_manifests.c.sha256)
            .where(S.run_data.c.run_id == run_id)
        ).first()
        if head is None:
            return None
        rows = conn.execute(
            sa.select(S.manifest_files.c.path, S.manifest_files.c.size, S.manifest_files.c.sha256)
            .where(S.manifest_files.c.manifest == head.sha256)
            .order_by(S.manifest_files.c.path)
        ).all()
    files = [{"path": p, "size": int(n), "sha256": s} for p, n, s in rows]
    return DataRecord(head.sha256, int(head.files), int(head.bytes), files)


def runs_reading(engine: Engine, path: str | os.PathLike[str]) -> list[int]:
    """The ids of the runs that read the file ``path`` (made absolute, as manifests record
    files), newest first."""
    where = os.path.abspath(os.fspath(path))
    with engine.connect() as conn:
        ids = conn.execute(
            sa.select(S.run_data.c.run_id)
            .join(S.manifest_files, S.manifest_files.c.manifest == S.run_data.c.manifest)
            .where(S.manifest_files.c.path == where)
            .order_by(S.run_data.c.run_id.desc())
        ).scalars()
        return [int(i) for i in ids]
