"""Runs, tags, metrics, blobs, artifacts, models and model versions.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

_TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "tw_runs",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("run_dir", sa.Text, nullable=True),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("config", sa.JSON, nullable=False),
        sa.Column("providers", sa.JSON, nullable=False),
        sa.Column("versions", sa.JSON, nullable=False),
        sa.Column("summary", sa.JSON, nullable=True),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("host", sa.String(200), nullable=True),
        sa.Column("pid", sa.Integer, nullable=True),
        sa.Column("epochs_done", sa.Integer, nullable=False),
        sa.Column("created_at", _TS, nullable=False),
        sa.Column("heartbeat_at", _TS, nullable=False),
        sa.Column("ended_at", _TS, nullable=True),
    )
    op.create_index("ix_tw_runs_name", "tw_runs", ["name"])
    op.create_index("ix_tw_runs_run_dir", "tw_runs", ["run_dir"])
    op.create_table(
        "tw_run_tags",
        sa.Column(
            "run_id", sa.Integer, sa.ForeignKey("tw_runs.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("tag", sa.String(200), primary_key=True),
    )
    op.create_table(
        "tw_metrics",
        sa.Column(
            "run_id", sa.Integer, sa.ForeignKey("tw_runs.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("epoch", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(200), primary_key=True),
        sa.Column("value", sa.Float, nullable=True),
    )
    op.create_table(
        "tw_blobs",
        sa.Column("sha256", sa.String(64), primary_key=True),
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("created_at", _TS, nullable=False),
    )
    op.create_table(
        "tw_artifacts",
        sa.Column(
            "run_id", sa.Integer, sa.ForeignKey("tw_runs.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("path", sa.Text, primary_key=True),
        sa.Column("sha256", sa.String(64), sa.ForeignKey("tw_blobs.sha256"), nullable=False),
        sa.Column("size", sa.Integer, nullable=False),
    )
    op.create_table(
        "tw_models",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(200), nullable=False, unique=True),
        sa.Column("description", sa.Text, nullable=True),
        sa.Column("created_at", _TS, nullable=False),
    )
    op.create_table(
        "tw_model_versions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "model_id",
            sa.Integer,
            sa.ForeignKey("tw_models.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("run_id", sa.Integer, sa.ForeignKey("tw_runs.id", ondelete="SET NULL")),
        sa.Column("stage", sa.String(50), nullable=True),
        sa.Column("tags", sa.JSON, nullable=False),
        sa.Column("manifest", sa.JSON, nullable=False),
        sa.Column("provenance", sa.JSON, nullable=False),
        sa.Column("created_at", _TS, nullable=False),
        sa.UniqueConstraint("model_id", "version", name="uq_tw_model_versions_model_version"),
    )


def downgrade() -> None:
    for table in (
        "tw_model_versions",
        "tw_models",
        "tw_artifacts",
        "tw_blobs",
        "tw_metrics",
        "tw_run_tags",
        "tw_runs",
    ):
        op.drop_table(table)
