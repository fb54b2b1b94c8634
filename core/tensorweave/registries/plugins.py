"""``tw.plugins``: the installed plugin distributions, their hooks, failures and blocking.

Hook modules (entry-point group ``tensorweave.plugins``) are loaded the first time a
hook is needed, one at a time: one that fails to import (even with ``SystemExit``) is
recorded with its distribution and cause, and the others still load. ``call`` runs a
hook through pluggy's own call loop (wrappers, ``tryfirst``/``trylast``, ``firstresult``
as pluggy documents them), with each implementation contained (``containment``): one that
raises is recorded against its distribution and the others still run. Component lookups
never load hook modules.

>>> import argparse, tensorweave as tw
>>> class Greeter:
...     @tw.hookimpl
...     def tensorweave_add_commands(self, subparsers):
...         subparsers.add_parser("greet")
...         return "greeter added greet"
>>> tw.plugins.register(Greeter(), name="greeter")
>>> sub = argparse.ArgumentParser().add_subparsers()
>>> "greeter added greet" in tw.plugins.call("tensorweave_add_commands", subparsers=sub)
True
>>> tw.plugins.unregister_name("greeter")
"""

from __future__ import annotations

import threading
import warnings
from dataclasses import dataclass
from typing import Any

import pluggy

from tensorweave.errors import PluginLoadError
from tensorweave.registries import hookspecs
from tensorweave.registries.containment import Contained, containing
from tensorweave.registries.counterparts import counterpart_failures
from tensorweave.registries.discovery import HOOKS_GROUP, DistributionInfo, catalog
from tensorweave.registries.kinds import kind_failures

__all__ = ["Plugins", "plugins", "PluginFailure"]

HOOK_GROUP = HOOKS_GROUP


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
        self._call_failures: dict[tuple[str, str], PluginLoadError] = {}
        self._generation = -1
        self._local: list[tuple[object, str]] = []

    @property
    def manager(self) -> pluggy.PluginManager:
        """The pluggy plugin manager, with every hook module loaded."""
        with self._lock:
            if self._manager is None or self._generation != catalog.generation:
                self._manager = self._build_manager()
            return self._manager

    @property
    def hook(self) -> Any:
        """``tw.plugins.hook.tensorweave_<name>(...)``: pluggy's own relay, where an
        implementation that raises ends the call (``call`` contains it instead)."""
        return self.manager.hook

    def register(self, plugin: object, name: str | None = None) -> None:
        """Register an in-process hook implementation (an object or module)."""
        name = name or getattr(plugin, "__name__", None) or str(id(plugin))
        with self._lock:
            self.manager.register(self._contained(plugin, name), name=name)
            self._local.append((plugin, name))

    def unregister(self, plugin: object) -> None:
        """Undo ``register``."""
        with self._lock:
            for given, name in [(p, n) for p, n in self._local if p is plugin]:
                self.manager.unregister(name=name)
                self._local.remove((given, name))

    def unregister_name(self, name: str) -> None:
        """Undo ``register(plugin, name=name)``."""
        with self._lock:
            for plugin, given in list(self._local):
                if given == name:
                    self.unregister(plugin)

    def call(self, hook: str, **kwargs: Any) -> Any:
        """Call ``hook`` with ``kwargs`` through pluggy's call loop; return its results.

        Implementations run in pluggy's order (last registered first, ``tryfirst`` and
        ``trylast`` honoured), wrappers (``wrapper=True``, old-style ``hookwrapper``) run
        around the others, and the result is pluggy's: the list of non-``None`` results,
        or the first one for a ``firstresult`` spec. An implementation that raises is
        recorded against its distribution (see ``failures()``) with a warning and skipped,
        so one broken plugin cannot take another plugin's commands or callbacks down.
        """
        caller = getattr(self.hook, hook, None)
        if caller is None:
            raise AttributeError(
                f"no hook {hook!r}: no installed plugin declares or implements it. Fix: check "
                "the name, or install the pack that publishes it."
            )
        with containing():
            return caller(**kwargs)

    def _contained(self, plugin: object, name: str) -> Contained:
        """``plugin`` as registered: each hook function contained (see ``containment``)."""
        return Contained(plugin, name, hookspecs.PROJECT, self._record_call_failure)

    def _record_call_failure(self, hook: str, plugin_name: str, err: BaseException) -> None:
        dist = plugin_name.split(":", 1)[0]
        failure = PluginLoadError(
            f"the {hook} hook of {plugin_name} raised {type(err).__name__}: "
            f"{err}. It was skipped; other plugins are unaffected. Fix: report it to "
            f"{dist}, or block it with TENSORWEAVE_BLOCK={dist}.",
            entry_point=hook,
            distribution=dist,
            version=self._version_of(dist),
            cause=err,
        )
        failure.__cause__ = err
        with self._lock:
            self._call_failures[(hook, plugin_name)] = failure
        warnings.warn(str(failure), RuntimeWarning, stacklevel=2)

    @staticmethod
    def _version_of(distribution: str) -> str:
        dist = catalog.distributions().get(distribution)
        return dist.version if dist is not None else ""

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
        """Hook modules that failed to load, hook implementations that raised, kind
        declarations and counterpart tables that failed (component failures are on each
        registry)."""
        _ = self.manager
        return [
            *self._hook_failures,
            *self._call_failures.values(),
            *kind_failures(),
            *counterpart_failures(),
        ]

    def module_failures(self) -> list[PluginLoadError]:
        """Hook modules that failed to load (their commands and hooks are missing)."""
        _ = self.manager
        return list(self._hook_failures)

    def _build_manager(self) -> pluggy.PluginManager:
        pm = pluggy.PluginManager(hookspecs.PROJECT)
        pm.add_hookspecs(hookspecs)
        # Replayed for every plugin as it registers, so plugins can publish hookspecs.
        pm.hook.tensorweave_add_hookspecs.call_historic(kwargs={"plugin_manager": pm})
        self._hook_failures = []
        self._call_failures = {}
        catalog.distributions()  # scan first: a scan bumps the generation we record
        self._generation = catalog.generation
        # Not pluggy's load_setuptools_entrypoints: it re-scans every distribution, lets the
        # first module that fails to import end the load (and SystemExit end the process),
        # and knows neither TENSORWEAVE_BLOCK by distribution nor a pack's core range.
        # The catalog's one scan is used instead, each module loaded on its own, contained.
        for ref in catalog.loadable(HOOK_GROUP):
            try:
                name = f"{ref.distribution}:{ref.name}"
                pm.register(self._contained(ref.load(), name), name=name)
            except KeyboardInterrupt:
                raise
            except BaseException as err:  # SystemExit at import must not end the caller
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
        for plugin, given in self._local:
            pm.register(self._contained(plugin, given), name=given)
        return pm


plugins = Plugins()
