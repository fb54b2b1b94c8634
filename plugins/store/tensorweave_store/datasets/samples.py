"""Tagged samples (TensorLayer's): insert samples with tags, select them by tags.

A sample is ``{field: array}`` stored as one ``.npz`` row, with any number of tags. A query
(``tags`` all present, one of ``any_tags``, none of ``exclude``) selects samples as they are
*now*; ``datasets.declare_query`` names one as a dataset version (a view, nothing copied)
and ``split`` deals its samples into train/valid by a seeded shuffle.

>>> import tempfile, numpy as np
>>> from tensorweave_store.store import open_store
>>> s = open_store(f"sqlite:///{tempfile.mkdtemp()}/s.db")
>>> ids = insert_samples(s, [{"x": np.full(2, i)} for i in range(4)], tags=["toy"])
>>> tag_samples(s, ids[:1], ["noisy"])
>>> query_samples(s, tags=["toy"], exclude=["noisy"])["id"].tolist()
[2, 3, 4]
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import sqlalchemy as sa

from tensorweave_store.db import schema as S
from tensorweave_store.db.schema import now
from tensorweave_store.errors import StoreError
from tensorweave_store.protocol import StoreLike

__all__ = ["insert_samples", "tag_samples", "query_samples", "split"]


def insert_samples(
    store: StoreLike, samples: Iterable[Mapping[str, Any]], tags: Iterable[str] = ()
) -> list[int]:
    """Add samples (``{field: array}`` each) with ``tags``; returns their ids."""
    tags = sorted(set(tags))
    blobs = []
    for sample in samples:
        buf = io.BytesIO()
        np.savez(buf, **{k: np.asarray(v) for k, v in sample.items()})  # type: ignore[arg-type]
        blobs.append(buf.getvalue())
    ids: list[int] = []
    with store.engine.begin() as conn:
        for data in blobs:
            key = conn.execute(
                sa.insert(S.samples).values(data=data, created_at=now())
            ).inserted_primary_key
            assert key is not None  # an INSERT of one row always has its key
            ids.append(int(key[0]))
        if tags and ids:
            conn.execute(
                sa.insert(S.sample_tags), [{"sample_id": i, "tag": t} for i in ids for t in tags]
            )
    return ids


def tag_samples(store: StoreLike, ids: Iterable[int], tags: Iterable[str]) -> None:
    """Add tags to existing samples."""
    ids, tags = list(ids), set(tags)
    with store.engine.begin() as conn:
        have = set(
            conn.execute(
                sa.select(S.sample_tags.c.sample_id, S.sample_tags.c.tag).where(
                    S.sample_tags.c.sample_id.in_(ids)
                )
            ).all()
        )
        rows = [{"sample_id": i, "tag": t} for i in ids for t in tags if (i, t) not in have]
        if rows:
            conn.execute(sa.insert(S.sample_tags), rows)


def _query(tags: Sequence[str], any_tags: Sequence[str], exclude: Sequence[str]) -> Any:
    q = sa.select(S.samples.c.id, S.samples.c.data).order_by(S.samples.c.id)
    st = S.sample_tags
    for tag in tags:
        q = q.where(sa.exists().where(st.c.sample_id == S.samples.c.id, st.c.tag == tag))
    if any_tags:
        q = q.where(
            sa.exists().where(st.c.sample_id == S.samples.c.id, st.c.tag.in_(list(any_tags)))
        )
    if exclude:
        q = q.where(
            ~sa.exists().where(st.c.sample_id == S.samples.c.id, st.c.tag.in_(list(exclude)))
        )
    return q


def query_samples(
    store: StoreLike,
    tags: Sequence[str] = (),
    any_tags: Sequence[str] = (),
    exclude: Sequence[str] = (),
) -> dict[str, np.ndarray]:
    """The samples with every tag in ``tags``, one of ``any_tags`` (if given) and none of
    ``exclude``, stacked by field (``id`` holds the sample ids), in insertion order."""
    with store.engine.connect() as conn:
        rows = conn.execute(_query(tags, any_tags, exclude)).all()
    if not rows:
        return {}
    fields: dict[str, list[np.ndarray]] = {}
    for _, data in rows:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            for k in npz.files:
                fields.setdefault(k, []).append(npz[k])
    out = {k: np.stack(v) for k, v in fields.items()}
    out["id"] = np.asarray([r[0] for r in rows], dtype="int64")
    return out


def split(store: StoreLike, q: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The samples of query ``q`` (``tags``, ``any``, ``exclude``, ``valid_fraction``,
    ``seed``) as ``(train, valid)`` arrays by field; ``StoreError`` when none match."""
    data = query_samples(store, q.get("tags") or (), q.get("any") or (), q.get("exclude") or ())
    if not data:
        raise StoreError(
            f"the query {dict(q)} matches no samples. Fix: insert samples with those tags "
            "(tensorweave_store.datasets.samples.insert_samples) or change the tags."
        )
    n = len(data["id"])
    order = np.random.default_rng(int(q.get("seed", 0))).permutation(n)
    n_valid = round(n * float(q.get("valid_fraction", 0.2)))
    fields = {k: v for k, v in data.items() if k != "id"}
    valid_idx, train_idx = np.sort(order[:n_valid]), np.sort(order[n_valid:])
    return (
        {k: v[train_idx] for k, v in fields.items()},
        {k: v[valid_idx] for k, v in fields.items()},
    )
