"""``tensorweave describe NAME``: a component's kind, providers, signature and documentation.

Read from the component's source file (located from its entry point without importing the
pack, parsed with ``ast``: ``tensorweave.registries.sources``), so describing never imports
TensorFlow or runs plugin code. ``--load`` imports the component and describes the live
object instead (for components whose signature is computed at run time).

Beside the signature it shows the Keras 3 counterpart the component is tested against,
the defaults that deliberately differ from it, and the other names it is known by (the
packs' counterpart tables), and, when several
distributions offer the name, every provider with the qualified name that picks it. A
name that is unknown here but known elsewhere (``Dense.v1``) gets what does that job.

>>> from tensorweave.registries.sources import signature_from_source
>>> print(signature_from_source("def scaled(x, factor: int = 2):\\n    'Scale x.'", "scaled")[0])
scaled(x, factor: int = 2)
"""

from __future__ import annotations

import argparse
import difflib
import inspect
import textwrap
from typing import Any

from tensorweave.errors import UnknownComponentError
from tensorweave.registries import ComponentInfo, Registry, kinds, registry
from tensorweave.registries.counterparts import counterparts_of, suggestion
from tensorweave.registries.sources import signature_and_doc

__all__ = ["add_command", "run", "describe_signature"]

UNREADABLE = "(not readable from source; `tensorweave describe NAME --load` imports it)"


def add_command(subparsers: Any) -> None:
    """Add ``describe NAME [--kind KIND] [--load]``."""
    cmd = subparsers.add_parser("describe", help="show a component's parameters and docs")
    cmd.add_argument("name", help="registered name, e.g. Linear.v1 or dist:Linear.v1")
    cmd.add_argument("--kind", help="the registry to look in (default: every kind)")
    cmd.add_argument(
        "--load", action="store_true", help="import the component and describe the live object"
    )
    cmd.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Describe every component named ``args.name`` (one per kind and provider)."""
    matches = _find(args.name, args.kind)
    if not matches:
        if args.kind:
            registry(args.kind).info(args.name)  # raises the helpful UnknownComponentError
        raise _unknown(args.name)
    for kind, reg in matches:
        name = args.name if args.name in reg else reg.latest(args.name) or args.name
        provider, _, bare = name.rpartition(":")
        offers = [i for i in reg.infos() if i.name == bare and provider in ("", i.distribution)]
        if len(offers) > 1:
            print(
                f"{bare} ({kind}) is offered by {len(offers)} distributions; the bare name is "
                f"ambiguous: ask for {' or '.join(i.qualified_name for i in offers)}.\n"
            )
        for info in offers:
            _describe(kind, reg, info, load=args.load, qualified=len(offers) > 1)
    return 0


def _find(name: str, kind: str | None) -> list[tuple[str, Registry[Any]]]:
    registries = [registry(kind)] if kind else list(kinds().values())
    return [
        (reg.kind, reg)
        for reg in registries
        if name in reg or (":" not in name and reg.latest(name) is not None)
    ]


def _unknown(name: str) -> UnknownComponentError:
    every = {n: k for k, reg in kinds().items() for n in reg.names()}
    close = difflib.get_close_matches(name, list(every), n=5, cutoff=0.6)
    hint = ", ".join(f"{n} ({every[n]})" for n in close) or "none"
    known = [line for k, reg in kinds().items() if (line := suggestion(k, name, reg.__contains__))]
    lines = [f"no component {name!r} in any kind ({', '.join(sorted(kinds()))})."]
    lines += [f"  {line}" for line in dict.fromkeys(known)]
    lines += [
        f"  Close matches: {hint}",
        "  Fix: check the spelling; `tensorweave plugins` lists what is installed.",
    ]
    return UnknownComponentError("\n".join(lines))


def _describe(
    kind: str, reg: Registry[Any], info: ComponentInfo, *, load: bool, qualified: bool
) -> None:
    title = info.qualified_name if qualified else info.name
    print(f"{title}  ({kind}, from {info.distribution} {info.version}, {info.target})")
    if load:
        obj = reg[info.qualified_name]
        signature, doc = describe_signature(obj), inspect.getdoc(obj) or ""
    else:
        signature, doc = signature_and_doc(info.target) or (UNREADABLE, "")
    print(f"  signature: {signature}")
    for row in counterparts_of(kind, info.name):
        if row.keras:
            usage = f" (with {row.usage})" if row.usage else ""
            print(
                f"  Keras counterpart: {row.keras}{usage}, same outputs and gradients (tested)"
                + ("" if row.differs else "; same defaults")
            )
        if row.also:
            print(f"  also known as: {', '.join(row.also)}")
        if row.differs:
            print("  Deliberate differences from Keras (docs/catalogue.md lists them all):")
        for diff in row.differs:
            print(f"    {diff.option}: {diff.ours} here, {diff.keras} in Keras: {diff.why}")
    print(textwrap.indent(doc or "(no documentation)", "  "))


def describe_signature(obj: Any) -> str:
    """``name(param: type = default, ...)`` for a loaded class's constructor or function."""
    target = obj.__init__ if inspect.isclass(obj) else obj
    try:
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        return "(not introspectable)"
    params = [p for p in sig.parameters.values() if p.name != "self"]
    shown = sig.replace(parameters=params, return_annotation=inspect.Signature.empty)
    return f"{getattr(obj, '__name__', type(obj).__name__)}{shown}"
