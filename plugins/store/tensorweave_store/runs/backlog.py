"""A run's backlog: the records it could not write to its store, kept until it can.

While the store is out of reach, a run's epochs, files and final status are appended to
``RUN_DIR/store-backlog.jsonl`` (one JSON object a line, after a header naming the run and
the store); a run without a directory keeps them in memory only. ``RunHandle`` writes them
when the store is back (at the next epoch), or ``tensorweave runs sync RUN`` does after the
run ended; the file is removed once everything in it is stored.

>>> import tempfile, pathlib
>>> log = Backlog(pathlib.Path(tempfile.mkdtemp()) / BACKLOG_FILE, run_id=7, store="sqlite:///s.db")
>>> log.add({"op": "epoch", "epoch": 0, "values": {"loss": 0.5}})
>>> again = Backlog.read(log.path)
>>> again.run_id, again.store, [r["op"] for r in again.records]
(7, 'sqlite:///s.db', ['epoch'])
>>> again.keep([]); log.path.exists()
False
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from tensorweave_store.errors import StoreError

__all__ = ["BACKLOG_FILE", "Backlog"]

BACKLOG_FILE = "store-backlog.jsonl"
_HEADER = "tensorweave_store_backlog"


class Backlog:
    """The pending records of run ``run_id`` of ``store`` (its URL without password), in
    ``path`` (``None``: in memory only)."""

    def __init__(self, path: Path | None, *, run_id: int, store: str) -> None:
        self.path = path
        self.run_id = run_id
        self.store = store
        self.records: list[dict[str, Any]] = []

    def __len__(self) -> int:
        return len(self.records)

    def where(self) -> str:
        """Where the records are kept, for messages."""
        return str(self.path) if self.path is not None else "memory (the run has no directory)"

    def add(self, record: Mapping[str, Any]) -> None:
        """Keep ``record`` (appended to the file, made with its header if new)."""
        self.records.append(dict(record))
        if self.path is None:
            return
        fresh = not self.path.exists()
        with open(self.path, "a", encoding="utf-8") as f:
            if fresh:
                f.write(json.dumps({_HEADER: 1, "run": self.run_id, "store": self.store}) + "\n")
            f.write(json.dumps(record, default=str) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def keep(self, records: Iterable[Mapping[str, Any]]) -> None:
        """Keep only ``records`` (those still not written); none left removes the file."""
        self.records = [dict(r) for r in records]
        if self.path is None:
            return
        if not self.records:
            self.path.unlink(missing_ok=True)
            return
        tmp = self.path.with_name(self.path.name + ".tmp")
        lines = [{_HEADER: 1, "run": self.run_id, "store": self.store}, *self.records]
        tmp.write_text("".join(json.dumps(r, default=str) + "\n" for r in lines), "utf-8")
        os.replace(tmp, self.path)

    @classmethod
    def read(cls, path: Path) -> Backlog:
        """The backlog in ``path`` (``StoreError`` naming the file when it is not one)."""
        try:
            lines = [json.loads(x) for x in path.read_text("utf-8").splitlines() if x.strip()]
            header = lines[0]
            log = cls(path, run_id=int(header["run"]), store=str(header["store"]))
            if header.get(_HEADER) != 1:
                raise ValueError("no backlog header")
        except (OSError, ValueError, LookupError, TypeError) as err:
            raise StoreError(
                f"{path} is not a readable store backlog ({err}). Fix: restore it from the "
                "run directory's copy or backup; nothing was recorded from it."
            ) from err
        log.records = lines[1:]
        return log
