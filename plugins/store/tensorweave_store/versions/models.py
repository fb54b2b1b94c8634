"""Model versions: a run's model (weights, config, processors) stored under a name.

``register(store, run, name)`` copies what restoring the model needs (``config.json``,
``processors.json``, the newest checkpoint) into the blob directory and records version
``n+1`` of ``name`` with its provenance (the run, its figures, providers and library
versions). ``NAME@VERSION`` resolves by number, ``latest`` or stage; ``materialize`` lays
the blobs out as a run directory in a local cache (verified on the way), which
``tensorweave predict NAME@VERSION`` and ``load_model("NAME@latest")`` use.

>>> run_files.__name__, parse_version("3"), parse_version("latest"), parse_version("staging")
('run_files', 3, 'latest', 'staging')
"""

from __future__ import annotations

import datetime as dt
import getpass
import hashlib
import json
import os
import shutil
import socket
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from tensorweave_store.db import schema as S
from tensorweave_store.db.schema import now
from tensorweave_store.db.schema import utc as _utc
from tensorweave_store.db.urls import parse_ref
from tensorweave_store.errors import ModelNotFoundError, StoreError
from tensorweave_store.names import check_name, check_relative, check_sha, inside
from tensorweave_store.protocol import StoreLike
from tensorweave_store.runs.filters import BuiltWith, parse_built_with

__all__ = [
    "ModelVersion",
    "register",
    "get_version",
    "list_models",
    "versions_built_with",
    "set_stage",
    "tag_version",
    "materialize",
    "run_files",
    "model_files",
    "parse_version",
    "CACHE_ENV",
]

CACHE_ENV = "TENSORWEAVE_STORE_CACHE"
_MODEL_FILES = ("config.json", "processors.json")
_RUN_FILES = ("config.json", "processors.json", "summary.json", "log.csv")


@dataclass
class ModelVersion:
    """One stored version of a named model."""

    name: str
    version: int
    run_id: int | None
    stage: str | None
    tags: list[str]
    manifest: dict[str, str]
    provenance: dict[str, Any]
    created_at: dt.datetime
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ref(self) -> str:
        """``NAME@VERSION``."""
        return f"{self.name}@{self.version}"


def parse_version(text: str) -> int | str:
    """A version number, ``latest``, or a stage name."""
    return int(text) if text.isdigit() else text


def _newest_checkpoint(run_dir: Path) -> Path | None:
    # the job's CheckpointCallback writes checkpoints/checkpoints/ckpt-N; accept any depth
    ckpts = [
        p for p in (run_dir / "checkpoints").rglob("ckpt-*") if (p / "MANIFEST.json").is_file()
    ]
    return max(ckpts, key=lambda p: p.name) if ckpts else None


def _regular(path: Path, run_dir: Path) -> Path:
    """``path`` when it is a regular file of ``run_dir`` reached through no symbolic link;
    ``StoreError`` naming it otherwise (the store copies a run's own files only)."""
    rel = path.relative_to(run_dir)
    hops = [run_dir.joinpath(*rel.parts[: i + 1]) for i in range(len(rel.parts))]
    link = next((p for p in hops if p.is_symlink()), None)
    if link is not None:
        raise StoreError(
            f"{link} is a symbolic link (to {os.readlink(link)}): tensorweave-store copies "
            f"the regular files of the run {run_dir} only, never what a link points to; "
            "nothing was stored. Fix: replace the link with the file itself, or remove it."
        )
    if not path.is_file():
        raise StoreError(f"{path} is not a regular file of the run {run_dir}; nothing was stored.")
    return path


def model_files(run_dir: str | Path) -> list[Path]:
    """What restoring a run's model needs: config, processors, the newest checkpoint (its
    regular files: a symbolic link among them is refused with ``StoreError``)."""
    where = Path(run_dir)
    files = [where / f for f in _MODEL_FILES if (where / f).is_file() or (where / f).is_symlink()]
    ckpt = _newest_checkpoint(where)
    if ckpt is not None:
        files += sorted(p for p in ckpt.iterdir() if p.is_file() or p.is_symlink())
    return [_regular(p, where) for p in files]


def run_files(run_dir: str | Path) -> list[Path]:
    """A run's artifacts: the model files plus the summary, log and source config."""
    where = Path(run_dir)
    extra = [where / f for f in _RUN_FILES[2:] if (where / f).is_file() or (where / f).is_symlink()]
    extra += sorted(where.glob("source.*"))
    return model_files(where) + [_regular(p, where) for p in extra]


def _row_to_version(name: str, row: Any) -> ModelVersion:
    return ModelVersion(
        name=name,
        version=row.version,
        run_id=row.run_id,
        stage=row.stage,
        tags=list(row.tags or []),
        manifest=dict(row.manifest or {}),
        provenance=dict(row.provenance or {}),
        created_at=_utc(row.created_at),  # type: ignore[arg-type]
    )


def _model_id(conn: sa.Connection, name: str, *, create: bool) -> int | None:
    found = conn.execute(sa.select(S.models.c.id).where(S.models.c.name == name)).scalar()
    if found is not None or not create:
        return found
    inserted = conn.execute(sa.insert(S.models).values(name=name, created_at=now()))
    key = inserted.inserted_primary_key
    assert key is not None  # an INSERT of one row always has its key
    return int(key[0])


def register(
    store: StoreLike,
    run: int | str,
    name: str,
    *,
    stage: str | None = None,
    tags: Iterable[str] = (),
    description: str | None = None,
) -> ModelVersion:
    """Store run ``run``'s model as the next version of ``name``."""
    check_name(name, "model")
    if stage is not None:
        check_name(stage, "stage")
    record = store.run(run)
    where = Path(record.run_dir or "")
    files = model_files(where) if record.run_dir and where.is_dir() else []
    if any("checkpoints" in f.parts for f in files):
        manifest = store.upload_dir(where, files)  # stored once; a damaged blob is healed
    else:  # the directory is gone: use the files recorded when the run ended
        manifest = {
            p: s
            for p, s in store.artifacts(record.id).items()
            if p in _MODEL_FILES or p.startswith("checkpoints/")
        }
    if not any(p.startswith("checkpoints/") for p in manifest):
        raise StoreError(
            f"run {record.id} ({record.name}) has no stored checkpoint and its directory "
            f"{record.run_dir} has none either. Fix: register a run that finished at least "
            "one epoch (tensorweave runs list --where status=finished)."
        )
    provenance = {
        "run_id": record.id,
        "run_name": record.name,
        "run_dir": record.run_dir,
        "run_status": record.status,
        "figures": record.figures,
        "providers": record.providers,
        "versions": record.versions,
        "registered_by": f"{_user()}@{socket.gethostname()}",
    }
    for attempt in range(5):
        try:
            with store.engine.begin() as conn:
                model_id = _model_id(conn, name, create=True)
                if description is not None:
                    conn.execute(
                        sa.update(S.models)
                        .where(S.models.c.id == model_id)
                        .values(description=description)
                    )
                last = conn.execute(
                    sa.select(sa.func.max(S.model_versions.c.version)).where(
                        S.model_versions.c.model_id == model_id
                    )
                ).scalar()
                version = int(last or 0) + 1
                conn.execute(
                    sa.insert(S.model_versions).values(
                        model_id=model_id,
                        version=version,
                        run_id=record.id,
                        stage=None,
                        tags=sorted(set(tags)),
                        manifest=manifest,
                        provenance=provenance,
                        created_at=now(),
                    )
                )
            break
        except sa.exc.IntegrityError:  # another process took that number: try the next
            if attempt == 4:
                raise
    ref = f"{name}@{version}"
    if stage:
        return set_stage(store, ref, stage)
    return get_version(store, ref)


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def _versions(conn: sa.Connection, name: str) -> list[Any]:
    return list(
        conn.execute(
            sa.select(S.model_versions)
            .join(S.models, S.models.c.id == S.model_versions.c.model_id)
            .where(S.models.c.name == name)
            .order_by(S.model_versions.c.version)
        ).all()
    )


def get_version(store: StoreLike, ref: str) -> ModelVersion:
    """``NAME@VERSION`` (a number, ``latest`` or a stage) -> ``ModelVersion``."""
    name, wanted = parse_ref(ref)
    check_name(name, "model")
    with store.engine.connect() as conn:
        rows = _versions(conn, name)
        if not rows:
            names = conn.execute(sa.select(S.models.c.name).order_by(S.models.c.name)).scalars()
            known = ", ".join(names) or "none yet"
            raise ModelNotFoundError(
                f"no model named {name!r} in the store {store.display_url} (models: {known}). "
                "Fix: register one with `tensorweave models register RUN NAME`."
            )
    version = parse_version(wanted)
    if version == "latest":
        chosen = rows[-1]
    elif isinstance(version, int):
        chosen = next((r for r in rows if r.version == version), None)
    else:
        staged = [r for r in rows if r.stage == version]
        chosen = staged[-1] if staged else None
    if chosen is None:
        have = ", ".join(f"{r.version}" + (f" ({r.stage})" if r.stage else "") for r in rows)
        raise ModelNotFoundError(
            f"model {name!r} has no version {wanted!r} (versions: {have}). Fix: use one of "
            f"those, {name}@latest, or a stage set with `tensorweave models stage`."
        )
    return _row_to_version(name, chosen)


def list_models(store: StoreLike) -> list[tuple[str, list[ModelVersion]]]:
    """``[(name, [versions…]), …]`` by name."""
    with store.engine.connect() as conn:
        names = list(conn.execute(sa.select(S.models.c.name).order_by(S.models.c.name)).scalars())
        return [(n, [_row_to_version(n, r) for r in _versions(conn, n)]) for n in names]


def versions_built_with(
    store: StoreLike, built_with: BuiltWith | str
) -> list[tuple[ModelVersion, list[str]]]:
    """Every model version whose run was built with a distribution in a version range
    (``--built-with "tensorweave-layers<0.2"``: which models must be retrained?), by name
    and version, each with the ``"dist version"`` its provenance records in range."""
    wanted = built_with if isinstance(built_with, BuiltWith) else parse_built_with(built_with)
    out = []
    for _, versions in list_models(store):
        for mv in versions:
            prov = mv.provenance or {}
            matched = wanted.matched(prov.get("providers") or {}, prov.get("versions") or {})
            if matched:
                out.append((mv, matched))
    return out


def set_stage(store: StoreLike, ref: str, stage: str | None) -> ModelVersion:
    """Put ``ref`` in ``stage`` (the version that held it before leaves it)."""
    mv = get_version(store, ref)
    if stage is not None and (stage.isdigit() or stage == "latest" or not stage.strip()):
        raise StoreError(f"stage {stage!r} would read as a version. Fix: e.g. production")
    if stage is not None:
        check_name(stage, "stage")
    with store.engine.begin() as conn:
        model_id = _model_id(conn, mv.name, create=False)
        if stage is not None:
            conn.execute(
                sa.update(S.model_versions)
                .where(S.model_versions.c.model_id == model_id, S.model_versions.c.stage == stage)
                .values(stage=None)
            )
        conn.execute(
            sa.update(S.model_versions)
            .where(
                S.model_versions.c.model_id == model_id, S.model_versions.c.version == mv.version
            )
            .values(stage=stage)
        )
    return get_version(store, mv.ref)


def tag_version(store: StoreLike, ref: str, tags: Iterable[str]) -> ModelVersion:
    """Add tags to a model version."""
    mv = get_version(store, ref)
    with store.engine.begin() as conn:
        model_id = _model_id(conn, mv.name, create=False)
        conn.execute(
            sa.update(S.model_versions)
            .where(
                S.model_versions.c.model_id == model_id, S.model_versions.c.version == mv.version
            )
            .values(tags=sorted(set(mv.tags) | set(tags)))
        )
    return get_version(store, mv.ref)


def _cache_root() -> Path:
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tensorweave-store"


def materialize(store: StoreLike, ref: str) -> Path:
    """A local directory laid out as a run directory for ``ref``, fetched from the blobs
    (each verified) into the cache (``TENSORWEAVE_STORE_CACHE``, default
    ``~/.cache/tensorweave-store``), keyed by the manifest's hash."""
    mv = get_version(store, ref)
    files = {check_relative(rel): check_sha(sha) for rel, sha in mv.manifest.items()}
    key = hashlib.sha256(json.dumps(mv.manifest, sort_keys=True).encode()).hexdigest()[:24]
    models_dir = _cache_root() / "models"
    models_dir.mkdir(parents=True, exist_ok=True)
    dest = inside(models_dir / f"{check_name(mv.name)}-{int(mv.version)}-{key}", models_dir)
    if (dest / ".complete").is_file():
        return dest
    tmp = dest.with_name(f".{dest.name}.tmp-{uuid.uuid4().hex}")
    try:
        for rel, sha in files.items():
            store.blobs.fetch(sha, inside(tmp / rel, tmp))
        (tmp / "model.json").write_text(
            json.dumps({"ref": mv.ref, "provenance": mv.provenance}, indent=2) + "\n"
        )
        (tmp / ".complete").write_text("")
        try:
            os.replace(tmp, dest)
        except OSError:  # another process placed it first
            if not (dest / ".complete").is_file():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return dest
