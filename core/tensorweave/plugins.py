"""``tw.plugins``: the installed plugin distributions, their hooks, failures and blocking.

Hook modules (entry-point group ``tensorweave.plugins``) are loaded the first time a
hook is needed, one at a time: one that fails to import is recorded with its distribution
and cause, and the others still load.

>>> import tensorweave as tw
>>> sorted(tw.plugins.hook.__dict__)[:1] != []
True
"""

from __future__ import annotations

import threading
import warnings
from dataclasses import dataclass
from typing import Any

import pluggy

from tensorweave import hookspecs
from tensorweave.discovery import DistributionInfo, catalog
from tensorweave.errors import PluginLoadError

__all__ = ["Plugins", "plugins", "PluginFailure"]

HOOK_GROUP = "tensorweave.plugins"


@dataclass(frozen=True)
class PluginFailure:
    """A plugin (hook module or component) that could not be loaded."""

    distribution: str
    version: str
    what: str
    cause: str


class Plugins:
    """The process's view of installed plugins; one instance, ``tw.plugins``."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._manager: pluggy.PluginManager | None = None
        self._hook_failures: list[PluginLoadError] = []
        self._generation = -1
        self._local: list[tuple[object, str | None]] = []

    @property
    def manager(self) -> pluggy.PluginManager:
        """The pluggy plugin manager, with every hook module loaded."""
        with self._lock:
            if self._manager is None or self._generation != catalog.generation:
                self._manager = self._build_manager()
            return self._manager

    @property
    def hook(self) -> Any:
        """``tw.plugins.hook.tensorweave_<name>(...)`` calls every implementation."""
        return self.manager.hook

    def register(self, plugin: object, name: str | None = None) -> None:
        """Register an in-process hook implementation (an object or module)."""
        with self._lock:
            self.manager.register(plugin, name=name)
            self._local.append((plugin, name))

    def unregister(self, plugin: object) -> None:
        """Undo ``register``."""
        with self._lock:
            self.manager.unregister(plugin)
            self._local = [(p, n) for p, n in self._local if p is not plugin]

    def distributions(self) -> dict[str, DistributionInfo]:
        """Every installed distribution that offers tensorweave entry points."""
        return catalog.distributions()

    def block(self, distribution: str) -> None:
        """Refuse every component and hook of ``distribution`` (like ``TENSORWEAVE_BLOCK``)."""
        catalog.block(distribution)

    def unblock(self, distribution: str) -> None:
        """Undo ``block``."""
        catalog.unblock(distribution)

    def blocked(self) -> frozenset[str]:
        """The blocked distributions."""
        return catalog.blocked()

    def refresh(self) -> None:
        """Re-scan installed distributions (after ``pip install`` in a running process)."""
        catalog.refresh()

    def failures(self) -> list[PluginLoadError]:
        """Hook modules that failed to load (component failures are on each registry)."""
        _ = self.manager
        return list(self._hook_failures)

    def validate_component(self, kind: str, name: str, component: Any) -> list[str]:
        """Problems reported by every ``tensorweave_validate_component`` implementation."""
        results = self.hook.tensorweave_validate_component(
            kind=kind, name=name, component=component
        )
        return [p for problems in results for p in (problems or [])]

    def _build_manager(self) -> pluggy.PluginManager:
        pm = pluggy.PluginManager(hookspecs.PROJECT)
        pm.add_hookspecs(hookspecs)
        # Replayed for every plugin as it registers, so plugins can publish hookspecs.
        pm.hook.tensorweave_add_hookspecs.call_historic(kwargs={"plugin_manager": pm})
        self._hook_failures = []
        catalog.distributions()  # scan first: a scan bumps the generation we record
        self._generation = catalog.generation
        for ref in catalog.entry_points(HOOK_GROUP):
            if catalog.is_blocked(ref.distribution):
                continue
            dist = catalog.distributions().get(ref.distribution)
            if dist is not None and not dist.compatible:
                continue
            try:
                module = ref.load()
                pm.register(module, name=f"{ref.distribution}:{ref.name}")
            except Exception as err:
                failure = PluginLoadError(
                    f"hook plugin {ref.name!r} from {ref.distribution} {ref.version} failed to "
                    f"load: {type(err).__name__}: {err}. Its hooks are skipped; everything else "
                    f"works. Fix: reinstall {ref.distribution}, or TENSORWEAVE_BLOCK="
                    f"{ref.distribution}.",
                    entry_point=ref.name,
                    distribution=ref.distribution,
                    version=ref.version,
                    cause=err,
                )
                failure.__cause__ = err
                self._hook_failures.append(failure)
                warnings.warn(str(failure), RuntimeWarning, stacklevel=2)
        for plugin, name in self._local:
            pm.register(plugin, name=name)
        return pm


plugins = Plugins()
