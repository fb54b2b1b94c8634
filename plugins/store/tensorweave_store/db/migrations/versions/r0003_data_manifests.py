"""Data manifests: the files a run read (path, size, sha256), a file set stored once.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tw_data_manifests",
        sa.Column("sha256", sa.String(64), primary_key=True),
        sa.Column("files", sa.Integer, nullable=False),
        sa.Column("bytes", sa.BigInteger, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "tw_manifest_files",
        sa.Column(
            "manifest",
            sa.String(64),
            sa.ForeignKey("tw_data_manifests.sha256", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("path", sa.Text, primary_key=True),
        sa.Column("size", sa.BigInteger, nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
    )
    op.create_index("ix_tw_manifest_files_path", "tw_manifest_files", ["path"])
    op.create_table(
        "tw_run_data",
        sa.Column(
            "run_id",
            sa.Integer,
            sa.ForeignKey("tw_runs.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column(
            "manifest",
            sa.String(64),
            sa.ForeignKey("tw_data_manifests.sha256"),
            nullable=False,
        ),
    )
    op.create_index("ix_tw_run_data_manifest", "tw_run_data", ["manifest"])


def downgrade() -> None:
    op.drop_index("ix_tw_run_data_manifest", "tw_run_data")
    op.drop_table("tw_run_data")
    op.drop_index("ix_tw_manifest_files_path", "tw_manifest_files")
    op.drop_table("tw_manifest_files")
    op.drop_table("tw_data_manifests")
