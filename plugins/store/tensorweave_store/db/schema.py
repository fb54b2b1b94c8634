"""The store's tables (SQLAlchemy 2 Core), the newest schema; Alembic migrations in
``migrations/versions`` build it step by step.

Every table name starts with ``tw_`` (and the Alembic version table is
``tw_alembic_version``) so that the store shares a database with other tools (an Optuna
study, say) without a clash.

- ``runs``: one row per training job (config, providers, library versions, status,
  heartbeat, final figures), ``run_tags`` and ``metrics`` (one row per epoch and value);
- ``blobs`` (sha256, size) and ``artifacts`` (a run's files, by blob);
- ``models`` and ``model_versions`` (a manifest of blobs, stage, tags, provenance);
- ``datasets`` (name, version, content hash, manifest or tag query), ``samples`` and
  ``sample_tags`` (TensorLayer-style tagged samples);
- ``data_manifests`` (a set of data files, keyed by its own sha256: stored once however
  many runs read it), ``manifest_files`` (each file's path, size and sha256) and
  ``run_data`` (which manifest a run read).

Times are stored in UTC: ``now()`` is the value written, ``utc()`` reads one back
(timezone-aware; SQLite returns naive ones).

>>> sorted(metadata.tables)[:3]
['tw_artifacts', 'tw_blobs', 'tw_data_manifests']
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

__all__ = [
    "metadata",
    "runs",
    "run_tags",
    "metrics",
    "blobs",
    "artifacts",
    "models",
    "model_versions",
    "datasets",
    "samples",
    "sample_tags",
    "data_manifests",
    "manifest_files",
    "run_data",
    "HEAD",
    "now",
    "utc",
]

#: The newest Alembic revision this package knows.
HEAD = "0003"


def now() -> dt.datetime:
    """The current UTC time (timezone-aware)."""
    return dt.datetime.now(dt.UTC)


def utc(value: dt.datetime | None) -> dt.datetime | None:
    """``value`` as a timezone-aware UTC time (SQLite returns naive ones)."""
    if value is None:
        return None
    return value if value.tzinfo else value.replace(tzinfo=dt.UTC)


metadata = MetaData()

runs = Table(
    "tw_runs",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(200), nullable=False),
    Column("run_dir", Text, nullable=True),
    Column("kind", String(20), nullable=False, default="train"),
    Column("status", String(20), nullable=False, default="running"),
    Column("config", JSON, nullable=False),
    Column("providers", JSON, nullable=False),
    Column("versions", JSON, nullable=False),
    Column("summary", JSON, nullable=True),
    Column("error", Text, nullable=True),
    Column("host", String(200), nullable=True),
    Column("pid", Integer, nullable=True),
    Column("epochs_done", Integer, nullable=False, default=0),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("heartbeat_at", DateTime(timezone=True), nullable=False),
    Column("ended_at", DateTime(timezone=True), nullable=True),
)
Index("ix_tw_runs_name", runs.c.name)
Index("ix_tw_runs_run_dir", runs.c.run_dir)

run_tags = Table(
    "tw_run_tags",
    metadata,
    Column("run_id", Integer, ForeignKey("tw_runs.id", ondelete="CASCADE"), primary_key=True),
    Column("tag", String(200), primary_key=True),
)

metrics = Table(
    "tw_metrics",
    metadata,
    Column("run_id", Integer, ForeignKey("tw_runs.id", ondelete="CASCADE"), primary_key=True),
    Column("epoch", Integer, primary_key=True),
    Column("name", String(200), primary_key=True),
    Column("value", Float, nullable=True),
)

blobs = Table(
    "tw_blobs",
    metadata,
    Column("sha256", String(64), primary_key=True),
    Column("size", Integer, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

artifacts = Table(
    "tw_artifacts",
    metadata,
    Column("run_id", Integer, ForeignKey("tw_runs.id", ondelete="CASCADE"), primary_key=True),
    Column("path", Text, primary_key=True),
    Column("sha256", String(64), ForeignKey("tw_blobs.sha256"), nullable=False),
    Column("size", Integer, nullable=False),
)

models = Table(
    "tw_models",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(200), nullable=False, unique=True),
    Column("description", Text, nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

model_versions = Table(
    "tw_model_versions",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("model_id", Integer, ForeignKey("tw_models.id", ondelete="CASCADE"), nullable=False),
    Column("version", Integer, nullable=False),
    Column("run_id", Integer, ForeignKey("tw_runs.id", ondelete="SET NULL"), nullable=True),
    Column("stage", String(50), nullable=True),
    Column("tags", JSON, nullable=False),
    Column("manifest", JSON, nullable=False),
    Column("provenance", JSON, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("model_id", "version", name="uq_tw_model_versions_model_version"),
)

# -- revision 0002 ------------------------------------------------------------------------
datasets = Table(
    "tw_datasets",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(200), nullable=False),
    Column("version", Integer, nullable=False),
    Column("kind", String(20), nullable=False),  # "arrays" or "query"
    Column("content_hash", String(64), nullable=True),
    Column("manifest", JSON, nullable=False),  # {split: {field: sha256}} for arrays
    Column("query", JSON, nullable=True),  # {"all": [...], "any": [...], "none": [...]}
    Column("info", JSON, nullable=False),
    Column("source_run_id", Integer, ForeignKey("tw_runs.id", ondelete="SET NULL"), nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("name", "version", name="uq_tw_datasets_name_version"),
)

samples = Table(
    "tw_samples",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("data", LargeBinary, nullable=False),  # an .npz of the sample's fields
    Column("created_at", DateTime(timezone=True), nullable=False),
)

sample_tags = Table(
    "tw_sample_tags",
    metadata,
    Column("sample_id", Integer, ForeignKey("tw_samples.id", ondelete="CASCADE"), primary_key=True),
    Column("tag", String(200), primary_key=True),
)
Index("ix_tw_sample_tags_tag", sample_tags.c.tag)

# -- revision 0003 ------------------------------------------------------------------------
data_manifests = Table(
    "tw_data_manifests",
    metadata,
    Column("sha256", String(64), primary_key=True),  # of its sorted (path, size, sha256)
    Column("files", Integer, nullable=False),
    Column("bytes", BigInteger, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

manifest_files = Table(
    "tw_manifest_files",
    metadata,
    Column(
        "manifest",
        String(64),
        ForeignKey("tw_data_manifests.sha256", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column("path", Text, primary_key=True),
    Column("size", BigInteger, nullable=False),
    Column("sha256", String(64), nullable=False),
)
Index("ix_tw_manifest_files_path", manifest_files.c.path)

run_data = Table(
    "tw_run_data",
    metadata,
    Column("run_id", Integer, ForeignKey("tw_runs.id", ondelete="CASCADE"), primary_key=True),
    Column("manifest", String(64), ForeignKey("tw_data_manifests.sha256"), nullable=False),
)
Index("ix_tw_run_data_manifest", run_data.c.manifest)
