"""``tensorweave plugins``: installed plugin distributions, their kinds and components.

Reads installed metadata only (no plugin or TensorFlow import), so it answers fast and a
broken plugin cannot break it. Hook modules are loaded to build the command line, so hook
failures (a module that raises, or even calls ``sys.exit``, at import; a hook that raises)
show here with their distribution. ``--check`` also imports every component and kind
declaration and reports those that fail.
"""

from __future__ import annotations

import argparse
import textwrap
import warnings
from typing import Any

from tensorweave.errors import PluginLoadError
from tensorweave.registries import ComponentInfo, catalog, kinds, plugins

__all__ = ["add_command", "table"]


def add_command(subparsers: Any) -> None:
    """Add ``plugins [--check]``."""
    cmd = subparsers.add_parser("plugins", help="list plugin distributions and components")
    cmd.add_argument(
        "--check",
        action="store_true",
        help="import every component (and TensorFlow) and report the ones that fail",
    )
    cmd.add_argument("--no-load", action="store_true", help=argparse.SUPPRESS)  # the default now
    cmd.set_defaults(func=run)


def table(rows: list[list[str]], header: list[str]) -> str:
    """A plain-text table with a rule under the header."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    line = "  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join(o.rstrip() for o in out)


def run(args: argparse.Namespace) -> int:
    """List every plugin distribution; with ``--check``, load and report failures."""
    dists = catalog.distributions()
    if not dists:
        print("No tensorweave plugins are installed. `pip install` a tensorweave pack first.")
        return 0
    by_dist: dict[str, dict[str, list[ComponentInfo]]] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for kind, reg in kinds().items():
            if args.check:
                reg.load_all()
            for info in reg.infos():
                by_dist.setdefault(info.distribution, {}).setdefault(kind, []).append(info)
        hook_failures: list[PluginLoadError] = plugins.failures()
    declared: dict[str, list[str]] = {}
    for ref in catalog.entry_points("tensorweave.kinds"):
        declared.setdefault(ref.distribution, []).append(ref.name)
    rows = []
    for name, dist in sorted(dists.items()):
        if catalog.is_blocked(name):
            status = "blocked"
        elif not dist.compatible:
            status = f"incompatible (needs tensorweave{dist.requires_core})"
        else:
            status = "ok"
        own = by_dist.get(name, {})
        summary = ", ".join(f"{k}: {len(v)}" for k, v in sorted(own.items()))
        failed = sum(1 for v in own.values() for i in v if i.status == "failed")
        failed += sum(1 for f in hook_failures if f.distribution == name)
        if failed and status == "ok":
            status = f"{failed} failed"
        rows.append([name, dist.version, status, summary or "hooks/kinds only"])
    print(table(rows, ["distribution", "version", "status", "components"]))
    for name, dist in sorted(dists.items()):
        own = by_dist.get(name, {})
        if not own and name not in declared:
            continue
        print(f"\n{name} {dist.version}")
        if name in declared:
            print(f"  declares kinds: {', '.join(sorted(declared[name]))}")
        for kind, infos in sorted(own.items()):
            names = ", ".join(
                i.name + ("" if i.status in ("available", "loaded") else f" [{i.status}]")
                for i in sorted(infos, key=lambda i: i.name)
            )
            print(textwrap.fill(names, 96, initial_indent=f"  {kind}: ", subsequent_indent="    "))
    failures = [i for d in by_dist.values() for v in d.values() for i in v if i.status == "failed"]
    if failures or hook_failures:
        print("\nFailed:")
        for info in failures:
            print(
                f"  {info.kind} {info.name} from {info.distribution} {info.version}: {info.error}"
            )
        for err in hook_failures:
            cause = f"{type(err.cause).__name__}: {err.cause}" if err.cause else str(err)
            print(f"  {err.entry_point} of {err.distribution} {err.version}: {cause}")
    if not args.check:
        print(
            "\n(metadata only; `tensorweave plugins --check` imports every component and "
            "reports the ones that fail)"
        )
    return 0
