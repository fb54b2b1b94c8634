"""Alembic migrations of the store schema (``versions/``), run by ``engine.migrate``."""
