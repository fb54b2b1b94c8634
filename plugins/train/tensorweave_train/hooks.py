"""The pack's pluggy plugin: publishes ``hookspecs`` through ``tensorweave_add_hookspecs``.

Registered in the ``tensorweave.plugins`` entry-point group. ``hook_callbacks(model)``
collects the callbacks every plugin offers; it also adds the hookspecs itself if the plugin
manager lacks them (a core that does not replay ``tensorweave_add_hookspecs``, or this pack
blocked/not installed as a distribution).

>>> hook_callbacks(None)
[]
>>> run_dir_of("runs/my-run") is None       # a reference no plugin claims
True
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pluggy

import tensorweave as tw
from tensorweave_train import hookspecs

__all__ = [
    "tensorweave_add_hookspecs",
    "hook_callbacks",
    "ensure_hookspecs",
    "job_started",
    "job_ended",
    "run_dir_of",
]


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


def job_started(job: Any, run_dir: Path, config: Any, kind: str) -> None:
    """Tell plugins a job starts (``tensorweave_job_started``)."""
    ensure_hookspecs().hook.tensorweave_job_started(
        job=job, run_dir=run_dir, config=config, kind=kind
    )


def job_ended(
    job: Any, run_dir: Path, kind: str, summary: Any, error: BaseException | None
) -> None:
    """Tell plugins a job ended (``tensorweave_job_ended``)."""
    ensure_hookspecs().hook.tensorweave_job_ended(
        job=job, run_dir=run_dir, kind=kind, summary=summary, error=error
    )


def run_dir_of(reference: str) -> Path | None:
    """The local run directory a plugin's ``tensorweave_resolve_run`` gives ``reference``
    (``NAME@VERSION``), or ``None`` when no plugin knows it; ``runs.directory.resolve_run``
    asks it, after a run directory itself."""
    found = ensure_hookspecs().hook.tensorweave_resolve_run(reference=str(reference))
    return Path(found) if found is not None else None
