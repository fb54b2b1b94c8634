"""A run as stored: ``RunRecord`` (the read-only view a query returns), its statuses, the
heartbeat interval and the providers of a config's components.

A run row holds the filled config, the provider (distribution and version) of every
component in it, the library versions, the status (``running``, ``finished``, ``failed``,
``interrupted``) and a heartbeat. ``runs.RunHandle`` writes it; ``runs.list_runs`` and
``runs.get_run`` read it back as ``RunRecord``\\s.

>>> providers_of({"opt": {"@optimizers": "Adam.v1", "@provider": "tensorweave-train 0.1.0"}})
{'opt': {'component': 'optimizers:Adam.v1', 'provider': 'tensorweave-train 0.1.0'}}
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tensorweave_store.filters import Condition, flatten

__all__ = [
    "RunRecord",
    "STATUSES",
    "HEARTBEAT_ENV",
    "NO_HEARTBEAT",
    "heartbeat_interval",
    "providers_of",
    "now",
    "utc",
]

STATUSES = ("running", "finished", "failed", "interrupted")
HEARTBEAT_ENV = "TENSORWEAVE_STORE_HEARTBEAT"
NO_HEARTBEAT = "no heartbeat: the process died or lost the store"


def heartbeat_interval() -> float:
    """Seconds between heartbeats (``TENSORWEAVE_STORE_HEARTBEAT``, default 10)."""
    return float(os.environ.get(HEARTBEAT_ENV) or 10.0)


def now() -> dt.datetime:
    """The current UTC time (timezone-aware)."""
    return dt.datetime.now(dt.UTC)


def utc(value: dt.datetime | None) -> dt.datetime | None:
    """``value`` as a timezone-aware UTC time (SQLite returns naive ones)."""
    if value is None:
        return None
    return value if value.tzinfo else value.replace(tzinfo=dt.UTC)


def providers_of(config: Any, path: str = "") -> dict[str, dict[str, str]]:
    """``{dotted path: {"component": "kind:name", "provider": "dist version"}}`` for every
    component of a filled config."""
    out: dict[str, dict[str, str]] = {}
    if isinstance(config, Mapping):
        kind = next(
            (
                k
                for k in config
                if isinstance(k, str) and k.startswith("@") and k not in ("@provider", "@versions")
            ),
            None,
        )
        if kind is not None and "@provider" in config:
            out[path or "."] = {
                "component": f"{kind[1:]}:{config[kind]}",
                "provider": str(config["@provider"]),
            }
        for key, value in config.items():
            out.update(providers_of(value, f"{path}.{key}" if path else str(key)))
    elif isinstance(config, list):
        for i, value in enumerate(config):
            out.update(providers_of(value, f"{path}.{i}" if path else str(i)))
    return out


@dataclass
class RunRecord:
    """A run as stored (read-only view)."""

    id: int
    name: str
    run_dir: str | None
    kind: str
    status: str
    config: dict[str, Any]
    providers: dict[str, Any]
    versions: dict[str, Any]
    summary: dict[str, Any] | None
    error: str | None
    host: str | None
    pid: int | None
    epochs_done: int
    created_at: dt.datetime
    heartbeat_at: dt.datetime
    ended_at: dt.datetime | None
    tags: list[str] = field(default_factory=list)
    last_values: dict[str, float] = field(default_factory=dict)

    @property
    def figures(self) -> dict[str, float]:
        """The run's final figures: its last epoch's values, then the final evaluation on
        the validation data as ``val_<name>``."""
        out = dict(self.last_values)
        for key, value in ((self.summary or {}).get("valid") or {}).items():
            out[f"val_{key}"] = value
        return out

    def values(self) -> dict[str, Any]:
        """Everything a filter can test: fields, figures and dotted config paths."""
        out: dict[str, Any] = flatten(self.config)
        out.update(
            id=self.id, name=self.name, status=self.status, kind=self.kind, run_dir=self.run_dir
        )
        out.update(self.figures)
        return out

    def matches(self, conditions: Iterable[Condition]) -> bool:
        values = self.values()
        return all(c.holds(values) for c in conditions)
