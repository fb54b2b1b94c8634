"""``Store``: one database (runs, models, datasets) and its blob directory.

>>> import tempfile, os
>>> root = tempfile.mkdtemp()
>>> store = open_store(f"sqlite:///{root}/s.db")
>>> run = store.start_run({"train": {"epochs": 1}}, name="demo", tags=["smoke"])
>>> run.log_epoch(0, {"loss": 0.5, "val_accuracy": 0.9})
>>> run.finish("finished")
>>> [(r.name, r.status, r.figures["val_accuracy"]) for r in store.runs(where=["val_accuracy>0.5"])]
[('demo', 'finished', 0.9)]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from tensorweave_store.db import schema as S
from tensorweave_store.db.blobs import BlobStore
from tensorweave_store.db.engine import connect
from tensorweave_store.db.urls import default_blobs, default_url, redact
from tensorweave_store.protocol import StoreLike
from tensorweave_store.runs import records as R
from tensorweave_store.runs.handle import RunHandle

__all__ = ["Store", "open_store", "load_model"]

_OPEN: dict[tuple[str, str], Store] = {}


def open_store(url: str | None = None, *, blobs: str | None = None, cached: bool = True) -> Store:
    """The store at ``url`` (default: ``TENSORWEAVE_STORE`` or the SQLite file under the runs
    root), migrated to the newest schema. One ``Store`` per URL and process when ``cached``."""
    resolved = default_url(url)
    blob_root = blobs or default_blobs(resolved)
    key = (resolved, blob_root)
    if cached and key in _OPEN:
        return _OPEN[key]
    store = Store(resolved, blobs=blob_root)
    if cached:
        _OPEN[key] = store
    return store


class Store:
    """The store at ``url`` with blobs at ``blobs``; see the package docstring."""

    def __init__(self, url: str, *, blobs: str | None = None) -> None:
        self.url = url
        self.display_url = redact(url)
        self.engine = connect(url)
        self.blobs = BlobStore(blobs or default_blobs(url))

    def __repr__(self) -> str:
        return f"Store({self.display_url!r})"

    def close(self) -> None:
        """Release the database connections."""
        self.engine.dispose()
        for key, value in list(_OPEN.items()):
            if value is self:
                del _OPEN[key]

    # -- runs -----------------------------------------------------------------------------
    def start_run(
        self,
        config: Mapping[str, Any],
        *,
        run_dir: str | Path | None = None,
        name: str | None = None,
        kind: str = "train",
        tags: Sequence[str] = (),
        heartbeat: bool = True,
        resume: bool = False,
    ) -> RunHandle:
        """Record a new run (status ``running``) and start its heartbeat. With ``resume``,
        the existing run of ``run_dir`` (if any) is reopened instead."""
        from tensorweave_store.names import check_name

        where = str(Path(run_dir).resolve()) if run_dir is not None else None
        if name is None:
            name = str((config.get("run") or {}).get("name") or "run")
        run_name = check_name(name, "run")
        run_id = None
        if resume and where is not None:
            try:
                run_id = R.get_run(self.engine, where).id
                R.reopen_run(self.engine, run_id, kind)
            except LookupError:
                run_id = None
        if run_id is None:
            run_id = R.insert_run(
                self.engine, config, name=run_name, run_dir=where, kind=kind, tags=tags
            )
        handle = RunHandle(self, run_id, where)
        if heartbeat:
            handle.start_heartbeat()
        return handle

    def runs(
        self,
        *,
        where: Iterable[str] = (),
        tags: Iterable[str] = (),
        status: str | None = None,
        name: str | None = None,
        limit: int | None = None,
    ) -> list[R.RunRecord]:
        """Runs, newest first (stale ``running`` runs are marked ``interrupted`` first)."""
        R.reap(self.engine)
        return R.list_runs(
            self.engine, where=where, tags=tags, status=status, name=name, limit=limit
        )

    def run(self, ref: int | str) -> R.RunRecord:
        """One run by id, run directory or name (``RunNotFoundError`` if none)."""
        R.reap(self.engine)
        return R.get_run(self.engine, ref)

    def metrics(self, ref: int | str) -> dict[str, list[tuple[int, float]]]:
        """A run's per-epoch values: ``{name: [(epoch, value), …]}``."""
        return R.run_metrics(self.engine, self.run(ref).id)

    def tag_run(self, ref: int | str, tags: Iterable[str]) -> None:
        """Add tags to a run."""
        run = self.run(ref)
        new = set(tags) - set(run.tags)
        if new:
            with self.engine.begin() as conn:
                conn.execute(sa.insert(S.run_tags), [{"run_id": run.id, "tag": t} for t in new])

    def delete_run(self, ref: int | str) -> R.RunRecord:
        """Delete a run's records (metrics, tags, artifact index); blobs and the run
        directory stay. Model versions made from it keep their blobs."""
        run = self.run(ref)
        with self.engine.begin() as conn:
            for table in (S.metrics, S.run_tags, S.artifacts, S.run_data):
                conn.execute(sa.delete(table).where(table.c.run_id == run.id))
            conn.execute(
                sa.update(S.model_versions)
                .where(S.model_versions.c.run_id == run.id)
                .values(run_id=None)
            )
            conn.execute(sa.delete(S.runs).where(S.runs.c.id == run.id))
        return run

    def sync(self, ref: int | str | Path) -> tuple[int, int]:
        """Record what a run kept in its directory while this store was out of reach (its
        ``store-backlog.jsonl``); ``ref`` is a run directory, id or name. Returns (run id,
        records written)."""
        from tensorweave_store.names import exists
        from tensorweave_store.runs.handle import sync_backlog

        where = Path(str(ref))
        if not exists(where, folder=True):
            run = self.run(str(ref))
            if not run.run_dir:
                return run.id, 0  # a plain Model.train's run: nothing kept on disk
            where = Path(run.run_dir)
        return sync_backlog(self, where)

    def reap(self, stale_after: float | None = None) -> list[int]:
        """Mark runs whose heartbeat stopped as ``interrupted``; returns their ids."""
        return R.reap(self.engine, stale_after=stale_after)

    # -- blobs and artifacts --------------------------------------------------------------
    def put_blob(self, path: str | Path | None = None, *, data: bytes | None = None) -> str:
        """Store a file (or bytes) in the blob directory and index it; returns the sha256."""
        if data is not None:
            sha, size = self.blobs.put_bytes(data), len(data)
        elif path is not None:
            sha, size = self.blobs.put_file(path), Path(path).stat().st_size
        else:
            raise ValueError("give a path or data")
        self._index_blobs([(sha, size)])
        return sha

    def _index_blobs(self, items: Iterable[tuple[str, int]]) -> None:
        sizes = dict(items)
        if not sizes:
            return
        with self.engine.begin() as conn:
            known = set(
                conn.execute(
                    sa.select(S.blobs.c.sha256).where(S.blobs.c.sha256.in_(list(sizes)))
                ).scalars()
            )
            fresh = [
                {"sha256": s, "size": n, "created_at": S.now()}
                for s, n in sizes.items()
                if s not in known
            ]
            if fresh:
                conn.execute(sa.insert(S.blobs), fresh)

    def upload_dir(self, run_dir: str | Path, files: Iterable[Path]) -> dict[str, str]:
        """Store files of ``run_dir``; returns ``{relative path: sha256}``."""
        base = Path(run_dir)
        manifest: dict[str, str] = {}
        sizes: list[tuple[str, int]] = []
        for path in files:
            sha = self.blobs.put_file(path)
            manifest[path.relative_to(base).as_posix()] = sha
            sizes.append((sha, path.stat().st_size))
        self._index_blobs(sizes)
        return manifest

    def record_artifacts(self, ref: int | str, run_dir: str | Path) -> int:
        """Store a run directory's files (its newest checkpoint only) as the run's
        artifacts, and record the data files it read (``record_data``); returns how many
        files were stored."""
        from tensorweave_store.versions.models import run_files

        run = self.run(ref)
        self.record_data(run.id, run_dir)
        manifest = self.upload_dir(run_dir, run_files(run_dir))
        sizes = {p: (Path(run_dir) / p).stat().st_size for p in manifest}
        with self.engine.begin() as conn:
            conn.execute(sa.delete(S.artifacts).where(S.artifacts.c.run_id == run.id))
            if manifest:
                conn.execute(
                    sa.insert(S.artifacts),
                    [
                        {"run_id": run.id, "path": p, "sha256": s, "size": sizes[p]}
                        for p, s in manifest.items()
                    ],
                )
        return len(manifest)

    def artifacts(self, ref: int | str) -> dict[str, str]:
        """A run's stored files: ``{relative path: sha256}``."""
        run = self.run(ref)
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(S.artifacts.c.path, S.artifacts.c.sha256).where(
                    S.artifacts.c.run_id == run.id
                )
            ).all()
        return {p: s for p, s in rows}

    # -- the data files runs read (see runs/data.py) -------------------------------------
    def record_data(self, ref: int | str, run_dir: str | Path) -> str | None:
        """Record the data files a run read (its directory's ``data_manifest.json``; a file
        set is stored once); returns the manifest's sha256, ``None`` when it kept none."""
        from tensorweave_store.runs import data

        return data.record_run_dir(self.engine, self.run(ref).id, run_dir)

    def data(self, ref: int | str) -> Any:
        """The data files a run read (a ``runs.data.DataRecord``), ``None`` if it recorded
        none (its data is held in memory, or it ran before the store recorded manifests)."""
        from tensorweave_store.runs import data

        return data.of_run(self.engine, self.run(ref).id)

    def runs_reading(self, path: str | Path) -> list[R.RunRecord]:
        """The runs that read the data file ``path`` (made absolute), newest first."""
        from tensorweave_store.runs import data

        ids = data.runs_reading(self.engine, path)
        return [self.run(i) for i in ids]

    # -- models and datasets (see versions/models.py, datasets/versions.py) ---------------
    def register_model(self, run: int | str, name: str, **kw: Any) -> Any:
        """Store a run's model as the next version of ``name``; see ``models.register``."""
        from tensorweave_store.versions import models

        return models.register(self, run, name, **kw)

    def model_version(self, ref: str) -> Any:
        """The ``ModelVersion`` of ``NAME@VERSION`` (``ModelNotFoundError`` if none)."""
        from tensorweave_store.versions import models

        return models.get_version(self, ref)

    def models(self) -> list[Any]:
        """Every model name with its versions (``ModelVersion`` lists), by name."""
        from tensorweave_store.versions import models

        return models.list_models(self)

    def set_stage(self, ref: str, stage: str | None) -> Any:
        """Move ``NAME@VERSION`` to ``stage`` (one version per stage and name)."""
        from tensorweave_store.versions import models

        return models.set_stage(self, ref, stage)

    def tag_model(self, ref: str, tags: Iterable[str]) -> Any:
        """Add tags to a model version."""
        from tensorweave_store.versions import models

        return models.tag_version(self, ref, tags)

    def resolve(self, ref: str) -> Path:
        """A local model directory (run-directory layout) for ``NAME@VERSION``, fetched
        from the blobs and verified."""
        from tensorweave_store.versions import models

        return models.materialize(self, ref)


def load_model(ref: str, store: StoreLike | None = None) -> Any:
    """The trained ``tensorweave_train.Model`` of ``NAME@VERSION`` (or of a run directory).

    ``store`` defaults to ``open_store()``.
    """
    import tensorweave_train as twt
    from tensorweave_store.db.urls import is_model_ref
    from tensorweave_store.names import exists
    from tensorweave_store.versions import models

    if is_model_ref(ref) and not exists(ref, folder=True):
        return twt.load_model(models.materialize(store or open_store(), ref))
    return twt.load_model(ref)
