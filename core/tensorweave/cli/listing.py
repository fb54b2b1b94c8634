"""``tensorweave plugins``: installed plugin distributions, their kinds, components and health.

Reads installed metadata and source only (no plugin or TensorFlow import), so it answers
fast and a broken plugin cannot break it. It shows what each distribution declares (kinds,
with their description) and offers (components per kind, hook modules), and what is
wrong: names offered by several distributions (clashes, with the qualified names that
pick each), kinds filled but declared by no pack, entry points whose target is not in the
installed source (with the ``pyproject.toml`` line to fix), and hook modules that failed
to load (they are loaded to build the command line). ``--check`` also imports every
component, kind declaration and counterpart table, reports those that fail, and exits 1
on any problem, so a pack's CI can gate on it. ``--json`` prints the same for tools.
"""

from __future__ import annotations

import argparse
import json
import textwrap
import warnings
from dataclasses import dataclass, field
from typing import Any

from tensorweave.errors import PluginLoadError
from tensorweave.registries import ComponentInfo, catalog, kinds, plugins
from tensorweave.registries.counterparts import counterparts
from tensorweave.registries.discovery import HOOKS_GROUP, KINDS_GROUP, DistributionInfo
from tensorweave.registries.health import (
    BrokenTarget,
    Clash,
    broken_targets,
    clashes,
    undeclared_kinds,
)
from tensorweave.registries.sources import kind_doc

__all__ = ["add_command", "run", "table", "Report", "gather"]


def add_command(subparsers: Any) -> None:
    """Add ``plugins [--check] [--json]``."""
    cmd = subparsers.add_parser("plugins", help="list plugin distributions and components")
    cmd.add_argument(
        "--check",
        action="store_true",
        help="import every component (and TensorFlow), report the ones that fail, and exit "
        "1 on any failure, clash or undeclared kind",
    )
    cmd.add_argument("--json", action="store_true", help="print the report as JSON, for tools")
    cmd.add_argument("--no-load", action="store_true", help=argparse.SUPPRESS)  # the default now
    cmd.set_defaults(func=run)


def table(rows: list[list[str]], header: list[str]) -> str:
    """A plain-text table with a rule under the header."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    line = "  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join(o.rstrip() for o in out)


@dataclass
class Report:
    """Everything ``tensorweave plugins`` shows, gathered once."""

    checked: bool
    distributions: dict[str, DistributionInfo]
    components: dict[str, dict[str, list[ComponentInfo]]]  # distribution -> kind -> infos
    declared: dict[str, dict[str, str]]  # distribution -> kind -> description
    hooks: dict[str, list[str]]  # distribution -> hook entry-point names
    clashes: list[Clash]
    undeclared: dict[str, list[str]]
    broken: list[BrokenTarget]
    failures: list[PluginLoadError] = field(default_factory=list)

    @property
    def problems(self) -> int:
        """How many things are wrong (what makes ``--check`` exit 1)."""
        return len(self.failures) + len(self.clashes) + len(self.undeclared) + len(self.broken)

    def status(self, name: str) -> str:
        """``ok``, ``blocked``, ``incompatible (...)`` or what is wrong with ``name``."""
        dist = self.distributions[name]
        if catalog.is_blocked(name):
            return "blocked"
        if not dist.compatible:
            return f"incompatible (needs tensorweave{dist.requires_core})"
        counts = {
            "failed": sum(1 for f in self.failures if f.distribution == name),
            "broken": sum(1 for b in self.broken if b.ref.distribution == name),
            "clash": sum(1 for c in self.clashes if name in c.distributions),
            "undeclared kind": sum(1 for ds in self.undeclared.values() if _named(name, ds)),
        }
        wrong = [
            f"{n} {what}{'es' if what == 'clash' and n > 1 else ''}"
            for what, n in counts.items()
            if n
        ]
        return ", ".join(wrong) or "ok"

    def as_json(self) -> dict[str, Any]:
        """The report as plain data (``--json``)."""
        return {
            "checked": self.checked,
            "ok": self.problems == 0,
            "distributions": [
                {
                    "name": name,
                    "version": dist.version,
                    "status": self.status(name),
                    "requires_tensorweave": dist.requires_core,
                    "declares_kinds": self.declared.get(name, {}),
                    "hooks": self.hooks.get(name, []),
                    "components": {
                        kind: [
                            {"name": i.name, "target": i.target, "status": i.status}
                            | ({"error": i.error} if i.error else {})
                            for i in infos
                        ]
                        for kind, infos in sorted(self.components.get(name, {}).items())
                    },
                }
                for name, dist in sorted(self.distributions.items())
            ],
            "clashes": [
                {
                    "kind": c.kind,
                    "name": c.name,
                    "distributions": list(c.distributions),
                    "qualified_names": list(c.qualified_names),
                }
                for c in self.clashes
            ],
            "undeclared_kinds": self.undeclared,
            "broken_entry_points": [
                {
                    "distribution": b.ref.distribution,
                    "kind": b.kind,
                    "name": b.ref.name,
                    "target": b.ref.value,
                    "problem": b.problem,
                }
                for b in self.broken
            ],
            "failures": [
                {
                    "distribution": f.distribution,
                    "version": f.version,
                    "entry_point": f.entry_point,
                    "message": str(f),
                }
                for f in self.failures
            ],
        }


def _named(name: str, labels: list[str]) -> bool:
    return any(label.split(" ", 1)[0] == name for label in labels)


def gather(*, check: bool = False) -> Report:
    """Read metadata (and, with ``check``, import everything) into a ``Report``."""
    components: dict[str, dict[str, list[ComponentInfo]]] = {}
    failures: list[PluginLoadError] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for kind, reg in kinds().items():
            if check:
                reg.load_all()
                failures += reg.failures()
            for info in reg.infos():
                components.setdefault(info.distribution, {}).setdefault(kind, []).append(info)
        if check:
            counterparts()  # tables load only on demand: --check loads them to check them
        failures += plugins.failures()
    declared: dict[str, dict[str, str]] = {}
    for ref in catalog.entry_points(KINDS_GROUP):
        declared.setdefault(ref.distribution, {})[ref.name] = kind_doc(ref.value)
    hooks: dict[str, list[str]] = {}
    for ref in catalog.entry_points(HOOKS_GROUP):
        hooks.setdefault(ref.distribution, []).append(ref.name)
    return Report(
        checked=check,
        distributions=catalog.distributions(),
        components=components,
        declared=declared,
        hooks=hooks,
        clashes=clashes(),
        undeclared=undeclared_kinds(),
        broken=[] if check else broken_targets(),  # under --check, the loads say it
        failures=failures,
    )


def run(args: argparse.Namespace) -> int:
    """List every plugin distribution; with ``--check``, load and report failures."""
    report = gather(check=args.check)
    if args.json:
        print(json.dumps(report.as_json(), indent=2))
    elif not report.distributions:
        print("No tensorweave plugins are installed. `pip install` a tensorweave pack first.")
    else:
        print(render(report))
    return 1 if args.check and report.problems else 0


def render(report: Report) -> str:
    """The text ``tensorweave plugins`` prints."""
    rows = []
    for name, dist in sorted(report.distributions.items()):
        own = report.components.get(name, {})
        summary = ", ".join(f"{k}: {len(v)}" for k, v in sorted(own.items()))
        rows.append([name, dist.version, report.status(name), summary or "hooks/kinds only"])
    out = [table(rows, ["distribution", "version", "status", "components"])]
    for name, dist in sorted(report.distributions.items()):
        own = report.components.get(name, {})
        out.append(f"\n{name} {dist.version}")
        for kind, doc in sorted(report.declared.get(name, {}).items()):
            out.append(f"  declares kind {kind}" + (f": {doc}" if doc else ""))
        for kind, infos in sorted(own.items()):
            names = ", ".join(
                i.name + ("" if i.status in ("available", "loaded") else f" [{i.status}]")
                for i in sorted(infos, key=lambda i: i.name)
            )
            out.append(
                textwrap.fill(names, 96, initial_indent=f"  {kind}: ", subsequent_indent="    ")
            )
        if report.hooks.get(name):
            out.append(f"  hooks: {', '.join(sorted(report.hooks[name]))}")
    out += _problems(report)
    if not report.checked:
        out.append(
            "\n(metadata only; `tensorweave plugins --check` imports every component, reports "
            "the ones that fail, and exits 1 on any problem)"
        )
    return "\n".join(out)


def _problems(report: Report) -> list[str]:
    out = []
    if report.clashes:
        out.append("\nClashes (the bare name raises ComponentConflictError; neither is picked):")
        out += [f"  {c.describe()}" for c in report.clashes]
    if report.undeclared:
        out.append("\nKinds filled but not declared (no tw.Kind: no check runs, no description):")
        for kind, dists in report.undeclared.items():
            out.append(
                f"  {kind}: filled by {', '.join(dists)}. Fix: the pack that introduces it "
                f'declares it: {kind} = "pkg.kinds:{kind}" under '
                f'[project.entry-points."{KINDS_GROUP}"], pointing at a tw.Kind'
            )
    if report.broken:
        out.append("\nBroken entry points (their component cannot load):")
        out += [f"  {b.describe()}" for b in report.broken]
    if report.failures:
        out.append("\nFailed:")
        for err in report.failures:
            out.append("  " + str(err).replace("\n", "\n  "))
    return out
