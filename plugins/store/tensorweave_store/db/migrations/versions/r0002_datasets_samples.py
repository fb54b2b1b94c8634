"""Datasets (arrays or tag queries) and tagged samples.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

_TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "tw_datasets",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("content_hash", sa.String(64), nullable=True),
        sa.Column("manifest", sa.JSON, nullable=False),
        sa.Column("query", sa.JSON, nullable=True),
        sa.Column("info", sa.JSON, nullable=False),
        sa.Column("source_run_id", sa.Integer, sa.ForeignKey("tw_runs.id", ondelete="SET NULL")),
        sa.Column("created_at", _TS, nullable=False),
        sa.UniqueConstraint("name", "version", name="uq_tw_datasets_name_version"),
    )
    op.create_table(
        "tw_samples",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("data", sa.LargeBinary, nullable=False),
        sa.Column("created_at", _TS, nullable=False),
    )
    op.create_table(
        "tw_sample_tags",
        sa.Column(
            "sample_id",
            sa.Integer,
            sa.ForeignKey("tw_samples.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("tag", sa.String(200), primary_key=True),
    )
    op.create_index("ix_tw_sample_tags_tag", "tw_sample_tags", ["tag"])


def downgrade() -> None:
    op.drop_index("ix_tw_sample_tags_tag", "tw_sample_tags")
    for table in ("tw_sample_tags", "tw_samples", "tw_datasets"):
        op.drop_table(table)
