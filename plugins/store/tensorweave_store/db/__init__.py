"""The database: its engine and Alembic migrations, the schema, the blob directory, the
store URLs and what an outage looks like."""
