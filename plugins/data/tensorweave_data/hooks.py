"""The data pack's pluggy plugin: publishes ``hookspecs`` through ``tensorweave_add_hookspecs``
(registered in the ``tensorweave.plugins`` entry-point group), and asks them.

>>> recorded_runs("no-such-run-anywhere")
[]
"""

from __future__ import annotations

from typing import Any

import pluggy

import tensorweave as tw
from tensorweave_data import hookspecs

__all__ = ["tensorweave_add_hookspecs", "ensure_hookspecs", "recorded_runs"]


@tw.hookimpl
def tensorweave_add_hookspecs(plugin_manager: pluggy.PluginManager) -> None:
    """Publish ``tensorweave_data_recorded`` for other plugins to implement."""
    ensure_hookspecs(plugin_manager)


def ensure_hookspecs(pm: pluggy.PluginManager | None = None) -> pluggy.PluginManager:
    """Add this pack's hookspecs to ``pm`` (default ``tw.plugins.manager``) once."""
    pm = pm if pm is not None else tw.plugins.manager
    caller = getattr(pm.hook, "tensorweave_data_recorded", None)
    if caller is None or caller.spec is None:
        pm.add_hookspecs(hookspecs)
    return pm


def recorded_runs(reference: str) -> list[dict[str, Any]]:
    """Every plugin's record of the run ``reference`` (``tensorweave_data_recorded``), each
    implementation called on its own (one that raises is recorded against its distribution
    and the others still answer)."""
    ensure_hookspecs()
    return [found for found in tw.plugins.call("tensorweave_data_recorded", reference=reference)
            if found is not None]  # fmt: skip
