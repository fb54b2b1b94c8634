"""The pack's pluggy plugin: publishes ``hookspecs`` through ``tensorweave_add_hookspecs``.

Registered in the ``tensorweave.plugins`` entry-point group. ``hook_callbacks(model)``
collects the callbacks every plugin offers; it also adds the hookspecs itself if the plugin
manager lacks them (a core that does not replay ``tensorweave_add_hookspecs``, or this pack
blocked/not installed as a distribution).

>>> hook_callbacks(None)
[]
"""

from __future__ import annotations

from typing import Any

import pluggy

import tensorweave as tw
from tensorweave_train import hookspecs

__all__ = ["tensorweave_add_hookspecs", "hook_callbacks", "ensure_hookspecs"]


@tw.hookimpl
def tensorweave_add_hookspecs(plugin_manager: pluggy.PluginManager) -> None:
    """Publish ``tensorweave_train_callbacks`` for other plugins to implement."""
    ensure_hookspecs(plugin_manager)


def ensure_hookspecs(pm: pluggy.PluginManager | None = None) -> pluggy.PluginManager:
    """Add this pack's hookspecs to ``pm`` (default ``tw.plugins.manager``) once."""
    pm = pm if pm is not None else tw.plugins.manager
    caller = getattr(pm.hook, "tensorweave_train_callbacks", None)
    if caller is None or caller.spec is None:
        pm.add_hookspecs(hookspecs)
    return pm


def hook_callbacks(model: Any) -> list[Any]:
    """Every callback the installed plugins return for ``model``, flattened.

    Each implementation is called on its own through ``tw.plugins.call``: one that raises
    is recorded against its distribution (``tw.plugins.failures()``, ``tensorweave
    plugins``) with a warning, and training goes on with the others' callbacks.
    """
    ensure_hookspecs()
    results = tw.plugins.call("tensorweave_train_callbacks", model=model)
    return [cb for group in results for cb in (group or [])]
