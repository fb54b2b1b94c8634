"""``tensorweave describe NAME``: a component's kind, provider, signature and documentation.

Read from the component's source file (located from its entry point without importing the
pack, parsed with ``ast``), so describing never imports TensorFlow or runs plugin code.
``--load`` imports the component and describes the live object instead (for components
whose signature is computed at run time).

>>> print(signature_from_source("def scaled(x, factor: int = 2):\\n    'Scale x.'", "scaled")[0])
scaled(x, factor: int = 2)
"""

from __future__ import annotations

import argparse
import ast
import difflib
import importlib.util
import inspect
import textwrap
from pathlib import Path
from typing import Any

from tensorweave.errors import UnknownComponentError
from tensorweave.registries import Registry, kinds, registry

__all__ = ["add_command", "run", "signature_from_source", "describe_signature"]


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
    """Describe every component named ``args.name`` (one per kind that has it)."""
    matches = _find(args.name, args.kind)
    if not matches:
        if args.kind:
            registry(args.kind).info(args.name)  # raises the helpful UnknownComponentError
        every = {n: k for k, reg in kinds().items() for n in reg.names()}
        close = difflib.get_close_matches(args.name, list(every), n=5, cutoff=0.6)
        hint = ", ".join(f"{n} ({every[n]})" for n in close) or "none"
        raise UnknownComponentError(
            f"no component {args.name!r} in any kind ({', '.join(sorted(kinds()))}).\n"
            f"  Close matches: {hint}\n"
            "  Fix: check the spelling; `tensorweave plugins` lists what is installed."
        )
    for kind, reg in matches:
        name = args.name if args.name in reg else reg.latest(args.name) or args.name
        info = reg.info(name)
        print(f"{info.name}  ({kind}, from {info.distribution} {info.version}, {info.target})")
        if args.load:
            obj = reg[name]
            signature, doc = describe_signature(obj), inspect.getdoc(obj) or ""
        else:
            signature, doc = _from_target(info.target)
        print(f"  signature: {signature}")
        print(textwrap.indent(doc or "(no documentation)", "  "))
    return 0


def _find(name: str, kind: str | None) -> list[tuple[str, Registry[Any]]]:
    registries = [registry(kind)] if kind else list(kinds().values())
    return [
        (reg.kind, reg)
        for reg in registries
        if name in reg or (":" not in name and reg.latest(name) is not None)
    ]


def _from_target(target: str) -> tuple[str, str]:
    """Signature and docstring of ``module:qualname``, read from its source file."""
    module, _, qualname = target.partition(":")
    for _ in range(4):  # follow re-exports (``from pkg.mod import Name``) a few hops
        path = _source_file(module)
        if path is None or not qualname:
            break
        source = path.read_text(encoding="utf-8", errors="replace")
        found = signature_from_source(source, qualname)
        if found is not None:
            return found
        origin = _imported_from(source, qualname.split(".")[0], module, path)
        if origin is None:
            break
        module, qualname = origin
    return "(not readable from source; `tensorweave describe NAME --load` imports it)", ""


def _source_file(module: str) -> Path | None:
    """The ``.py`` file of ``module``, found without executing any package of it."""
    top, *rest = module.split(".")
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if not rest:
        return Path(spec.origin) if spec.origin and spec.origin.endswith(".py") else None
    for base in spec.submodule_search_locations or []:
        candidate = Path(base, *rest)
        for path in (candidate.with_suffix(".py"), candidate / "__init__.py"):
            if path.is_file():
                return path
    return None


def _imported_from(source: str, name: str, module: str, path: Path) -> tuple[str, str] | None:
    """Where ``name`` is imported from in ``source`` (``from X import name``), if it is."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if (alias.asname or alias.name) == name:
                    base = node.module or ""
                    if node.level:
                        package = (
                            module if path.name == "__init__.py" else module.rpartition(".")[0]
                        )
                        for _ in range(node.level - 1):
                            package = package.rpartition(".")[0]
                        base = f"{package}.{base}" if base else package
                    return base, alias.name
    return None


def signature_from_source(source: str, qualname: str) -> tuple[str, str] | None:
    """``("Name(params)", docstring)`` of a class or function defined in ``source``."""
    scope: list[ast.stmt] = ast.parse(source).body
    node: ast.AST | None = None
    for part in qualname.split("."):
        node = next(
            (
                n
                for n in scope
                if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                and n.name == part
            ),
            None,
        )
        if node is None:
            return _assignment(scope, part)
        scope = node.body
    if isinstance(node, ast.ClassDef):
        init = next(
            (n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"),
            None,
        )
        params = _params(init.args, drop_self=True) if init is not None else "..."
        return f"{node.name}({params})", ast.get_docstring(node) or ""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return f"{node.name}({_params(node.args)})", ast.get_docstring(node) or ""
    return None


def _assignment(scope: list[ast.stmt], name: str) -> tuple[str, str] | None:
    for n in scope:
        if isinstance(n, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in n.targets
        ):
            return f"{name} = {ast.unparse(n.value)}", ""
    return None


def _params(args: ast.arguments, *, drop_self: bool = False) -> str:
    """The parameter list as ``inspect.Signature`` would print it."""

    def one(arg: ast.arg, default: ast.expr | None) -> str:
        text = arg.arg + (f": {ast.unparse(arg.annotation)}" if arg.annotation else "")
        if default is not None:
            text += (" = " if arg.annotation else "=") + ast.unparse(default)
        return text

    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
    defaults += args.defaults
    parts = [one(a, d) for a, d in zip(positional, defaults, strict=True)]
    if args.posonlyargs:
        parts.insert(len(args.posonlyargs), "/")
    if args.vararg:
        parts.append("*" + one(args.vararg, None))
    elif args.kwonlyargs:
        parts.append("*")
    parts += [one(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)]
    if args.kwarg:
        parts.append("**" + one(args.kwarg, None))
    if drop_self and positional and positional[0].arg in ("self", "cls"):
        parts = parts[1:]
    return ", ".join(parts)


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
