"""The ``tensorweave`` command line: plugins, describe, new-plugin, and plugin commands.

Core commands:

- ``tensorweave plugins`` — every plugin distribution, its version, its components per
  kind, and the ones that failed to load with why (``--no-load`` lists without importing);
- ``tensorweave describe NAME`` — a component's kind, provider, parameters and docs;
- ``tensorweave new-plugin NAME`` — scaffold a new plugin pack from the template.

Installed plugins add more (``train``, ``evaluate``…) through the
``tensorweave_add_commands`` hook. Exit codes: 0 success, 1 failure, 2 usage error,
3 unknown or unloadable component.
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys
import textwrap
from collections.abc import Sequence
from typing import Any

__all__ = ["main", "build_parser"]

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_COMPONENT = 0, 1, 2, 3


def build_parser() -> argparse.ArgumentParser:
    """The argument parser, with every plugin's subcommands added."""
    import tensorweave as tw

    parser = argparse.ArgumentParser(
        prog="tensorweave",
        description="Build, compile and train neural networks from installed plugins.",
    )
    parser.add_argument("--version", action="version", version=f"tensorweave {tw.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    plugins_cmd = sub.add_parser("plugins", help="list plugin distributions and components")
    plugins_cmd.add_argument(
        "--no-load", action="store_true", help="list without importing plugin code"
    )
    plugins_cmd.set_defaults(func=_cmd_plugins)

    describe = sub.add_parser("describe", help="show a component's parameters and docs")
    describe.add_argument("name", help="registered name, e.g. Linear.v1 or dist:Linear.v1")
    describe.add_argument("--kind", help="the registry to look in (default: all)")
    describe.set_defaults(func=_cmd_describe)

    import importlib

    try:
        scaffold: Any = importlib.import_module("tensorweave.scaffold")
        scaffold.add_command(sub)
    except ImportError:  # pragma: no cover - scaffold ships with the core
        pass

    try:
        tw.plugins.hook.tensorweave_add_commands(subparsers=sub)
    except Exception as err:  # a broken plugin must not take the CLI down
        print(f"warning: a plugin failed to add its commands: {err}", file=sys.stderr)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tensorweave`` script; returns the exit code."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    from tensorweave.errors import RegistryError, TensorweaveError

    try:
        code: int = args.func(args)
        return code
    except RegistryError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_COMPONENT
    except TensorweaveError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_FAIL
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def _table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    line = "  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join(o.rstrip() for o in out)


def _cmd_plugins(args: argparse.Namespace) -> int:
    import warnings

    import tensorweave as tw

    dists = tw.plugins.distributions()
    if not dists:
        print("No tensorweave plugins are installed. Try: pip install tensorweave-layers")
        return EXIT_OK
    by_dist: dict[str, dict[str, list[tw.ComponentInfo]]] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for group in sorted({ep.group for d in dists.values() for ep in d.entry_points}):
            kind = group.removeprefix("tensorweave.")
            if kind == "plugins":
                continue
            reg = tw.registry(kind)
            if not args.no_load:
                reg.load_all()
            for info in reg.infos():
                by_dist.setdefault(info.distribution, {}).setdefault(kind, []).append(info)
        hook_failures = [] if args.no_load else tw.plugins.failures()
    rows = []
    for name, dist in sorted(dists.items()):
        status = (
            "blocked"
            if tw.plugins.blocked() & {name}
            else (
                "ok" if dist.compatible else f"incompatible (needs tensorweave{dist.requires_core})"
            )
        )
        kinds = by_dist.get(name, {})
        summary = ", ".join(f"{k}: {len(v)}" for k, v in sorted(kinds.items())) or "hooks only"
        failed = sum(1 for v in kinds.values() for i in v if i.status == "failed")
        if failed:
            status = f"{failed} failed"
        rows.append([name, dist.version, status, summary])
    print(_table(rows, ["distribution", "version", "status", "components"]))
    for name in sorted(by_dist):
        if name not in dists:
            continue
        print(f"\n{name} {dists[name].version}")
        for kind, infos in sorted(by_dist[name].items()):
            names = ", ".join(
                i.name + ("" if i.status in ("available", "loaded") else f" [{i.status}]")
                for i in sorted(infos, key=lambda i: i.name)
            )
            print(textwrap.fill(names, 96, initial_indent=f"  {kind}: ", subsequent_indent="    "))
    failures = [i for d in by_dist.values() for v in d.values() for i in v if i.status == "failed"]
    if failures or hook_failures:
        print("\nFailed to load:")
        for info in failures:
            print(
                f"  {info.kind} {info.name} from {info.distribution} {info.version}: {info.error}"
            )
        for err in hook_failures:
            print(f"  hooks {err.entry_point} from {err.distribution} {err.version}: {err.cause}")
    return EXIT_OK


def _find(name: str, kind: str | None) -> list[tuple[str, Any]]:
    import tensorweave as tw

    registries = [tw.registry(kind)] if kind else list(tw.kinds().values())
    found = []
    for reg in registries:
        if name in reg or (":" not in name and reg.latest(name)):
            found.append((reg.kind, reg))
    return found


def _cmd_describe(args: argparse.Namespace) -> int:
    import tensorweave as tw

    matches = _find(args.name, args.kind)
    if not matches:
        if args.kind:
            tw.registry(args.kind)[args.name]  # raises the helpful UnknownComponentError
        import difflib

        every = {n: k for k, reg in tw.kinds().items() for n in reg.names()}
        close = difflib.get_close_matches(args.name, list(every), n=5, cutoff=0.6)
        hint = ", ".join(f"{n} ({every[n]})" for n in close) or "none"
        raise tw.UnknownComponentError(
            f"no component {args.name!r} in any registry ({', '.join(sorted(tw.kinds()))}).\n"
            f"  Close matches: {hint}\n"
            "  Fix: check the spelling; `tensorweave plugins` lists what is installed."
        )
    for kind, reg in matches:
        name = args.name if args.name in reg else reg.latest(args.name)
        info = reg.info(name)
        obj = reg[name]
        print(f"{info.name}  ({kind}, from {info.distribution} {info.version}, {info.target})")
        print(f"  signature: {describe_signature(obj)}")
        doc = inspect.getdoc(obj) or "(no documentation)"
        print(textwrap.indent(doc, "  "))
    return EXIT_OK


def describe_signature(obj: Any) -> str:
    """``name(param: type = default, ...)`` for a class's constructor or a function."""
    target = obj.__init__ if inspect.isclass(obj) else obj
    try:
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        return "(not introspectable)"
    params = [p for p in sig.parameters.values() if p.name != "self"]
    return f"{getattr(obj, '__name__', type(obj).__name__)}({', '.join(str(p) for p in params)})"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
