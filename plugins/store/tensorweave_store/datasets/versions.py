"""Datasets in the store: versioned arrays with a content hash, and TensorLayer-style
tagged samples with datasets declared as tag queries (views: nothing is copied).

- ``register_arrays(store, name, {"train": {...}, "valid": {...}})`` stores each array as
  an ``.npy`` blob and records version ``n+1`` with the sha256 of the whole content (the
  same content registered again returns the existing version);
- ``insert_samples(store, [{"x": …, "y": …}, …], tags=["digits", "clean"])`` adds samples
  (``datasets.samples``; importable from here too);
  ``declare_query(store, "clean_digits", tags=["digits"], exclude=["noisy"])`` names a
  query, evaluated each time it is loaded;
- ``write_predictions(store, name, inputs, predictions, model=…)`` keeps a model's outputs
  as a dataset;
- in a job config, ``[data] "@datasets" = "store.v1"`` with ``dataset = "digits@2"``, or
  ``"@datasets" = "store_query.v1"`` with ``dataset = "clean_digits@1"`` (or
  ``tags = [...]``) trains on them by name.

>>> import tempfile, numpy as np
>>> from tensorweave_store.store import open_store
>>> s = open_store(f"sqlite:///{tempfile.mkdtemp()}/s.db")
>>> ids = insert_samples(s, [{"x": np.full(2, i), "y": np.int64(i % 2)} for i in range(6)],
...                      tags=["toy"])
>>> _ = declare_query(s, "toy_all", tags=["toy"], valid_fraction=0.5)
>>> d = get_dataset(s, "toy_all@latest").load()
>>> d.train["x"].shape, d.valid["y"].shape
((3, 2), (3,))
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sqlalchemy as sa

from tensorweave_store.datasets.samples import insert_samples, query_samples, tag_samples
from tensorweave_store.datasets.samples import split as split_samples
from tensorweave_store.db import schema as S
from tensorweave_store.db.schema import now
from tensorweave_store.db.schema import utc as _utc
from tensorweave_store.db.urls import parse_ref
from tensorweave_store.errors import DatasetNotFoundError, StoreError
from tensorweave_store.names import check_name
from tensorweave_store.protocol import StoreLike

__all__ = [
    "StoreSplits",
    "DatasetVersion",
    "register_arrays",
    "insert_samples",
    "tag_samples",
    "query_samples",
    "declare_query",
    "get_dataset",
    "list_datasets",
    "write_predictions",
    "store_dataset",
    "store_query",
]


@dataclass
class StoreSplits:
    """What a job's ``[data]`` needs: ``train``/``valid`` arrays by field, ``info`` and the
    processors a predictor applies (the shape of tensorweave-data's ``DataSplits``)."""

    train: dict[str, np.ndarray]
    valid: dict[str, np.ndarray]
    info: dict[str, Any] = field(default_factory=dict)
    preprocess: list[dict[str, Any]] = field(default_factory=list)
    postprocess: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class DatasetVersion:
    """One registered dataset version (arrays, or a tag query)."""

    store: StoreLike
    name: str
    version: int
    kind: str
    content_hash: str | None
    manifest: dict[str, dict[str, str]]
    query: dict[str, Any] | None
    info: dict[str, Any]
    source_run_id: int | None
    created_at: dt.datetime

    @property
    def ref(self) -> str:
        return f"{self.name}@{self.version}"

    @property
    def size(self) -> int:
        """Examples (all splits), from the info recorded at registration."""
        return int(self.info.get("examples", 0))

    def describe(self) -> str:
        if self.kind == "query" and self.query:
            q = self.query
            parts = [
                f"tags {'+'.join(q.get('tags') or [])}" if q.get("tags") else "",
                f"any {'|'.join(q['any'])}" if q.get("any") else "",
                f"not {','.join(q['exclude'])}" if q.get("exclude") else "",
            ]
            return "view: samples with " + " ".join(p for p in parts if p)
        return ", ".join(f"{s}: {', '.join(f)}" for s, f in self.manifest.items())

    def load(self) -> StoreSplits:
        """The arrays (blobs verified), or the query's samples as of now."""
        info = {k: v for k, v in self.info.items() if k not in ("preprocess", "postprocess")}
        pre = list(self.info.get("preprocess") or [])
        post = list(self.info.get("postprocess") or [])
        if self.kind == "query":
            q = self.query or {}
            train, valid = split_samples(self.store, q)
            info["examples"] = _count(train) + _count(valid)
            return StoreSplits(train, valid, info, pre, post)
        splits = {
            split: {
                f: np.load(io.BytesIO(self.store.blobs.get(sha)), allow_pickle=False)
                for f, sha in fields.items()
            }
            for split, fields in self.manifest.items()
        }
        return StoreSplits(splits.get("train", {}), splits.get("valid", {}), info, pre, post)


def _count(split: Mapping[str, np.ndarray]) -> int:
    return len(next(iter(split.values()))) if split else 0


def _npy(array: Any) -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.asarray(array), allow_pickle=False)
    return buf.getvalue()


def _row(store: StoreLike, r: Any) -> DatasetVersion:
    return DatasetVersion(
        store=store,
        name=r.name,
        version=r.version,
        kind=r.kind,
        content_hash=r.content_hash,
        manifest=dict(r.manifest or {}),
        query=r.query,
        info=dict(r.info or {}),
        source_run_id=r.source_run_id,
        created_at=_utc(r.created_at),  # type: ignore[arg-type]
    )


def _insert_version(store: StoreLike, name: str, **values: Any) -> DatasetVersion:
    check_name(name, "dataset")
    for attempt in range(5):
        try:
            with store.engine.begin() as conn:
                last = conn.execute(
                    sa.select(sa.func.max(S.datasets.c.version)).where(S.datasets.c.name == name)
                ).scalar()
                version = int(last or 0) + 1
                conn.execute(
                    sa.insert(S.datasets).values(
                        name=name, version=version, created_at=now(), **values
                    )
                )
            return get_dataset(store, f"{name}@{version}")
        except sa.exc.IntegrityError:
            if attempt == 4:
                raise
    raise AssertionError("unreachable")


def register_arrays(
    store: StoreLike,
    name: str,
    splits: Mapping[str, Mapping[str, Any]],
    *,
    info: Mapping[str, Any] | None = None,
    preprocess: Sequence[Mapping[str, Any]] = (),
    postprocess: Sequence[Mapping[str, Any]] = (),
    source_run: int | str | None = None,
) -> DatasetVersion:
    """Store ``{split: {field: array}}`` as the next version of ``name`` (or return the
    latest version when its content hash is the same)."""
    manifest: dict[str, dict[str, str]] = {}
    examples = 0
    for split, fields in splits.items():
        manifest[split] = {f: store.put_blob(data=_npy(a)) for f, a in fields.items()}
        examples += _count({k: np.asarray(v) for k, v in fields.items()})
    digest = hashlib.sha256(json.dumps(manifest, sort_keys=True).encode()).hexdigest()
    try:
        latest = get_dataset(store, f"{name}@latest")
        if latest.content_hash == digest:
            return latest
    except DatasetNotFoundError:
        pass
    meta = dict(info or {})
    meta.update(examples=examples, preprocess=list(preprocess), postprocess=list(postprocess))
    run_id = store.run(source_run).id if source_run is not None else None
    return _insert_version(
        store,
        name,
        kind="arrays",
        content_hash=digest,
        manifest=manifest,
        query=None,
        info=meta,
        source_run_id=run_id,
    )


def declare_query(
    store: StoreLike,
    name: str,
    *,
    tags: Sequence[str] = (),
    any_tags: Sequence[str] = (),
    exclude: Sequence[str] = (),
    valid_fraction: float = 0.2,
    seed: int = 0,
    info: Mapping[str, Any] | None = None,
    preprocess: Sequence[Mapping[str, Any]] = (),
    postprocess: Sequence[Mapping[str, Any]] = (),
) -> DatasetVersion:
    """Name a query over sample tags as the next version of ``name`` (a view)."""
    if not (tags or any_tags):
        raise StoreError("a query dataset needs tags or any_tags. Fix: tags=['digits']")
    query = {
        "tags": sorted(tags),
        "any": sorted(any_tags),
        "exclude": sorted(exclude),
        "valid_fraction": valid_fraction,
        "seed": seed,
    }
    meta = dict(info or {})
    meta.update(preprocess=list(preprocess), postprocess=list(postprocess))
    meta["examples"] = len(query_samples(store, tags, any_tags, exclude).get("id", []))
    return _insert_version(
        store,
        name,
        kind="query",
        content_hash=None,
        manifest={},
        query=query,
        info=meta,
        source_run_id=None,
    )


def get_dataset(store: StoreLike, ref: str) -> DatasetVersion:
    """``NAME@VERSION`` (or ``NAME`` / ``NAME@latest``) -> ``DatasetVersion``."""
    name, wanted = parse_ref(ref)
    check_name(name, "dataset")
    with store.engine.connect() as conn:
        rows = conn.execute(
            sa.select(S.datasets).where(S.datasets.c.name == name).order_by(S.datasets.c.version)
        ).all()
    if not rows:
        raise DatasetNotFoundError(
            f"no dataset named {name!r} in the store {store.display_url}. Fix: register it "
            "(tensorweave_store.datasets.versions.register_arrays / declare_query) or see "
            "`tensorweave datasets list`."
        )
    if wanted == "latest":
        return _row(store, rows[-1])
    chosen = next((r for r in rows if str(r.version) == wanted), None)
    if chosen is None:
        raise DatasetNotFoundError(
            f"dataset {name!r} has no version {wanted!r} (versions: "
            f"{', '.join(str(r.version) for r in rows)}). Fix: use one of those or latest."
        )
    return _row(store, chosen)


def list_datasets(store: StoreLike) -> list[DatasetVersion]:
    """Every dataset version, by name then version."""
    with store.engine.connect() as conn:
        rows = conn.execute(
            sa.select(S.datasets).order_by(S.datasets.c.name, S.datasets.c.version)
        ).all()
    return [_row(store, r) for r in rows]


def write_predictions(
    store: StoreLike,
    name: str,
    inputs: Mapping[str, Any],
    predictions: Any,
    *,
    model: str | None = None,
    source_run: int | str | None = None,
) -> DatasetVersion:
    """Keep ``predictions`` (with the ``inputs`` they came from) as a dataset version."""
    fields = {
        **{k: np.asarray(v) for k, v in inputs.items()},
        "prediction": np.asarray(predictions),
    }
    return register_arrays(
        store,
        name,
        {"predictions": fields},
        info={"model": model, "kind": "predictions"},
        source_run=source_run,
    )


def _open(store: str | None) -> Any:
    from tensorweave_store.db.urls import config_url
    from tensorweave_store.store import open_store

    return open_store(config_url(store, "the store datasets (store.v1, store_query.v1)"))


def store_dataset(dataset: str, store: str | None = None) -> StoreSplits:
    """``"@datasets" = "store.v1"``: a registered dataset by ``dataset = "NAME@VERSION"``."""
    return get_dataset(_open(store), dataset).load()


def store_query(
    dataset: str | None = None,
    tags: list[str] | None = None,
    any_tags: list[str] | None = None,
    exclude: list[str] | None = None,
    valid_fraction: float = 0.2,
    seed: int = 0,
    store: str | None = None,
) -> StoreSplits:
    """``"@datasets" = "store_query.v1"``: a declared query by ``dataset = "NAME@VERSION"``,
    or the samples with ``tags`` (a view, evaluated now)."""
    st = _open(store)
    if dataset is not None:
        return get_dataset(st, dataset).load()
    q = {
        "tags": tags or [],
        "any": any_tags or [],
        "exclude": exclude or [],
        "valid_fraction": valid_fraction,
        "seed": seed,
    }
    train, valid = split_samples(st, q)
    return StoreSplits(train, valid, {"examples": _count(train) + _count(valid), "query": q})
