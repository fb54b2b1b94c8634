"""Alembic environment: migrates the connection ``engine.migrate`` hands over."""

from __future__ import annotations

from alembic import context

from tensorweave_store.db.schema import metadata

config = context.config
context.configure(
    connection=config.attributes["connection"],
    target_metadata=metadata,
    version_table=config.get_main_option("version_table") or "tw_alembic_version",
    render_as_batch=True,
)
with context.begin_transaction():
    context.run_migrations()
