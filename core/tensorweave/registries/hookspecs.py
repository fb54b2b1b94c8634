"""The pluggy hooks tensorweave calls, for what cuts across components.

Components (layers, losses…) come through per-kind entry points, and kinds (with their
checks) through the ``tensorweave.kinds`` group. Hooks are for the rest: command-line
subcommands, conformance checks for a pack's own kinds, and hookspecs that other plugins
(e.g. a training pack) add for their own extension points. A plugin module named in the ``tensorweave.plugins`` entry-point group
implements any of them with ``@tw.hookimpl``; an implementation may take fewer arguments
than the spec, so specs can grow without breaking plugins. Hook modules are loaded when a
hook is first called (the command line, a training run), never by a component lookup, so
keep them light: import heavy modules inside the implementations.

>>> import tensorweave as tw
>>> class MyPlugin:
...     @tw.hookimpl
...     def tensorweave_add_commands(self, subparsers):
...         pass
>>> hasattr(MyPlugin.tensorweave_add_commands, "tensorweave_impl")
True
"""

from __future__ import annotations

from typing import Any

import pluggy

__all__ = ["hookspec", "hookimpl", "PROJECT"]

PROJECT = "tensorweave"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec(historic=True)
def tensorweave_add_hookspecs(plugin_manager: pluggy.PluginManager) -> None:
    """Add hookspecs of your own (``plugin_manager.add_hookspecs(module)``).

    Called once for every plugin as it registers, so a training pack can publish hooks
    (say, ``tensorweave_fit_callbacks``) that third-party plugins then implement.
    """


@hookspec
def tensorweave_add_commands(subparsers: Any) -> None:
    """Add subcommands to the ``tensorweave`` command line.

    ``subparsers`` is an ``argparse`` sub-parsers action: call ``subparsers.add_parser(...)``
    and set ``func=`` with ``parser.set_defaults(func=handler)``; the handler receives the
    parsed ``argparse.Namespace`` and returns an exit code.
    """


@hookspec
def tensorweave_conformance_checks(kind: str) -> dict[str, Any] | None:
    """Checks that the conformance kit runs on every component of ``kind`` (from any pack).

    The pack that declares a kind implements it to enforce what its ``tw.Kind`` check
    cannot see without running the component: return ``{"check_name": check}`` for your
    kind (``None`` for the others), where ``check(component)`` receives the component a
    ``ComponentCase`` built and raises ``AssertionError`` when it does not conform. Keep
    heavy imports inside the check: hook modules stay light.
    """
