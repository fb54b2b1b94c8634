"""``StoreLike``: what the pack's functions need of a store, typed once.

``Store`` (``tensorweave_store.store``) is the one implementation; the functions of
``runs``, ``versions`` and ``datasets`` take any object with these members, so they import
no concrete store (and the store imports them without a cycle).

>>> import tempfile
>>> from tensorweave_store.store import open_store
>>> isinstance(open_store(f"sqlite:///{tempfile.mkdtemp()}/s.db"), StoreLike)
True
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from tensorweave_store.db.blobs import BlobStore
    from tensorweave_store.runs.records import RunRecord

__all__ = ["StoreLike"]


@runtime_checkable
class StoreLike(Protocol):
    """A store: one database (``engine``) and its blob directory (``blobs``), with the run
    records the model and dataset versions refer to."""

    url: str
    display_url: str
    engine: Engine
    blobs: BlobStore

    def run(self, ref: int | str) -> RunRecord:
        """One run by id, run directory or name (``RunNotFoundError`` if none)."""
        ...

    def tag_run(self, ref: int | str, tags: Iterable[str]) -> None:
        """Add tags to a run."""
        ...

    def artifacts(self, ref: int | str) -> dict[str, str]:
        """A run's stored files: ``{relative path: sha256}``."""
        ...

    def record_artifacts(self, ref: int | str, run_dir: str | Path) -> int:
        """Store a run directory's files as the run's artifacts; returns how many."""
        ...

    def record_data(self, ref: int | str, run_dir: str | Path) -> str | None:
        """Record the data files a run read (its ``data_manifest.json``)."""
        ...

    def put_blob(self, path: str | Path | None = None, *, data: bytes | None = None) -> str:
        """Store a file (or bytes) in the blob directory; returns the sha256."""
        ...

    def upload_dir(self, run_dir: str | Path, files: Iterable[Path]) -> dict[str, str]:
        """Store files of ``run_dir``; returns ``{relative path: sha256}``."""
        ...
