"""Alembic's migration scripts run only inside Alembic: pytest must not import them."""

collect_ignore_glob = ["tensorweave_store/db/migrations/*"]
