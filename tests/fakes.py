"""Fake installed distributions for discovery tests: real metadata, real modules.

``FakeDists.add`` writes a ``NAME-VERSION.dist-info`` directory (``METADATA`` with
``Name``/``Version``/``Requires-Dist`` and an ``entry_points.txt``) plus module files into
a fresh directory, prepends it to ``sys.path`` and calls ``tw.plugins.refresh()``, exactly
as ``pip install`` followed by a refresh would. Every distribution and module name gets a
per-fixture suffix so that no two tests ever share a name (registries cache loaded
components by distribution, entry point and version).
"""

from __future__ import annotations

import importlib
import itertools
import sys
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import tensorweave as tw
from tensorweave.registries.discovery import normalize

_counter = itertools.count()

IMPORTS: list[str] = []
"""Fake modules made with ``counted()`` append their name here each time they are imported."""


def counted(source: str) -> str:
    """``source`` that records its own import in ``IMPORTS``."""
    return "from tests import fakes as _fakes\n_fakes.IMPORTS.append(__name__)\n" + textwrap.dedent(
        source
    )


@dataclass
class FakeDist:
    """One fake distribution: its real (suffixed) name, version and module names."""

    name: str
    version: str
    path: Path
    modules: dict[str, str] = field(default_factory=dict)

    def module(self, short: str) -> str:
        """The real name of the module written as ``short``."""
        return self.modules[short]

    def qualified(self, component: str) -> str:
        """``"dist-name:Component.v1"``."""
        return f"{self.name}:{component}"


class FakeDists:
    """Create fake distributions in ``root``; ``cleanup()`` undoes everything."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.tag = f"t{next(_counter)}"
        self.dists: list[FakeDist] = []
        self._paths: list[str] = []
        self._blocked_before = tw.plugins.blocked()

    def add(
        self,
        name: str,
        version: str = "1.0",
        *,
        entry_points: Mapping[str, Mapping[str, str]] | None = None,
        modules: Mapping[str, str] | None = None,
        requires: Sequence[str] = (),
        exact_name: bool = False,
    ) -> FakeDist:
        """Install a fake distribution.

        Args:
            name: the distribution name (suffixed with this fixture's tag unless
                ``exact_name``).
            entry_points: ``{"layers": {"Thing.v1": "mod:Thing"}}``; a group without a dot
                is a tensorweave kind. Module names written in ``modules`` are rewritten
                to their suffixed names.
            modules: ``{"mod": "source code"}``, written as ``mod_<tag>_<n>.py``.
            requires: ``Requires-Dist`` lines, e.g. ``"tensorweave<0.1"``.
        """
        real = name if exact_name else f"{name}-{self.tag}"
        directory = self.root / f"site{len(self._paths)}"
        directory.mkdir()
        mapping = {short: f"{short}_{self.tag}_{len(self.dists)}" for short in (modules or {})}
        for dist in self.dists:
            mapping.update({s: r for s, r in dist.modules.items() if s not in mapping})
        for short, source in (modules or {}).items():
            (directory / f"{mapping[short]}.py").write_text(textwrap.dedent(source))
        info = directory / f"{real.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        meta = ["Metadata-Version: 2.1", f"Name: {real}", f"Version: {version}"]
        meta += [f"Requires-Dist: {r}" for r in requires]
        (info / "METADATA").write_text("\n".join(meta) + "\n")
        lines = []
        for group, eps in (entry_points or {}).items():
            full = group if "." in group else f"tensorweave.{group}"
            lines.append(f"[{full}]")
            for ep_name, value in eps.items():
                module, _, attr = value.partition(":")
                target = mapping.get(module, module)
                lines.append(f"{ep_name} = {target}:{attr}" if attr else f"{ep_name} = {target}")
            lines.append("")
        (info / "entry_points.txt").write_text("\n".join(lines))
        sys.path.insert(len(self._paths), str(directory))
        self._paths.append(str(directory))
        dist = FakeDist(
            normalize(real),
            version,
            directory,
            {s: r for s, r in mapping.items() if s in (modules or {})},
        )
        self.dists.append(dist)
        importlib.invalidate_caches()
        tw.plugins.refresh()
        return dist

    def imported(self) -> set[str]:
        """The fake modules that are currently imported."""
        return {m for d in self.dists for m in d.modules.values() if m in sys.modules}

    def cleanup(self) -> None:
        """Remove every fake distribution and module, unblock, and re-scan."""
        for path in self._paths:
            if path in sys.path:
                sys.path.remove(path)
        for dist in self.dists:
            for module in dist.modules.values():
                sys.modules.pop(module, None)
        for blocked in tw.plugins.blocked() - self._blocked_before:
            tw.plugins.unblock(blocked)
        importlib.invalidate_caches()
        tw.plugins.refresh()


# Module sources used by several tests.

LAYER_SOURCE = """
import tensorweave as tw


class Thing(tw.Layer):
    def __init__(self, x, *, offset=1.0, name=None, share_state_with=None):
        super().__init__(x, shape=x.shape, dtype=x.dtype, name=name,
                         share_state_with=share_state_with)
        self.offset = offset

    def compute(self, x):
        return x + self.offset
"""

FUNCTION_SOURCE = """
def double(x):
    return 2 * x


def triple(x):
    return 3 * x
"""

BROKEN_SOURCE = """
raise ImportError("this plugin is broken on purpose")
"""

POLICY_KIND_SOURCE = """
import tensorweave as tw


def _house_rules(component):
    if getattr(component, "__name__", "") == "double":
        return "double breaks the house rules"
    return None


activations = tw.Kind("activations", doc="activation functions", check=_house_rules)
"""

EXITING_SOURCE = """
import sys

sys.exit("this plugin calls sys.exit() at import")
"""

COMMANDS_SOURCE = """
import tensorweave as tw


@tw.hookimpl
def tensorweave_add_commands(subparsers):
    cmd = subparsers.add_parser("hello-fake", help="says hello")
    cmd.set_defaults(func=lambda args: print("hello from a plugin") or 0)
"""

RAISING_COMMANDS_SOURCE = """
import tensorweave as tw


@tw.hookimpl
def tensorweave_add_commands(subparsers):
    raise RuntimeError("this plugin's commands are broken on purpose")
"""

HOOKSPEC_SOURCE = """
import pluggy
import tensorweave as tw

spec = pluggy.HookspecMarker("tensorweave")


class Specs:
    @spec
    def tensorweave_extra_greeting(self, who):
        '''A hook published by a plugin.'''


@tw.hookimpl
def tensorweave_add_hookspecs(plugin_manager):
    plugin_manager.add_hookspecs(Specs)
"""

GREETING_SOURCE = """
import tensorweave as tw


@tw.hookimpl
def tensorweave_extra_greeting(who):
    return f"hello {who}"
"""
