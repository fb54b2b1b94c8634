"""Reading a plugin's code from its source files, without importing (running) any of it.

``tensorweave plugins`` and ``tensorweave describe`` answer from metadata and source alone,
so neither imports TensorFlow nor runs plugin code. An entry point's ``module:qualname``
is located on ``sys.path`` (``source_file``), parsed with ``ast``, and followed through
re-exports (``from pkg.mod import Name``) a few hops (``find``). From the definition found:

- ``signature_and_doc``: ``Name(params)`` and the docstring, as ``inspect`` would show them;
- ``kind_doc``: the ``doc=`` of a ``tw.Kind(...)`` declaration;
- ``target_problem``: why an entry-point target cannot load (no such module, no such
  name: with close matches), or ``None`` when it looks right or cannot be told.

>>> print(signature_from_source("def scaled(x, factor: int = 2):\\n    'Scale x.'", "scaled")[0])
scaled(x, factor: int = 2)
>>> target_problem("tensorweave.errors:ShapeEror")
"tensorweave.errors does not define 'ShapeEror' (close matches: ShapeError)"
"""

from __future__ import annotations

import ast
import difflib
import functools
import importlib.util
import inspect
import re
from dataclasses import dataclass
from importlib.machinery import ModuleSpec
from pathlib import Path

from tensorweave.registries.discovery import catalog

__all__ = [
    "Definition",
    "source_file",
    "find",
    "signature_and_doc",
    "signature_from_source",
    "kind_doc",
    "target_problem",
]

_HOPS = 4  # re-exports followed before giving up
_DEFS = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class Definition:
    """Where ``qualname`` is defined: its module, file and ``ast`` node (a class, a
    function, or the ``Assign`` that binds it)."""

    module: str
    qualname: str
    path: Path
    node: ast.AST


def source_file(module: str) -> Path | None:
    """The ``.py`` file of ``module``, found without executing any package of it."""
    top, *rest = module.split(".")
    spec = _top_level(top, catalog.generation)
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


@functools.lru_cache(maxsize=512)
def _top_level(top: str, generation: int) -> ModuleSpec | None:
    """The spec of a top-level module, once per scan (``find_spec`` walks ``sys.path``)."""
    try:
        return importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None


@functools.lru_cache(maxsize=256)
def _parsed(path: Path, mtime: float) -> ast.Module | None:
    try:
        return ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return None


def _tree(path: Path) -> ast.Module | None:
    try:
        return _parsed(path, path.stat().st_mtime)
    except OSError:
        return None


def find(target: str) -> Definition | None:
    """The definition of ``module:qualname``, following re-exports; ``None`` if not found."""
    module, _, qualname = target.partition(":")
    for _ in range(_HOPS):
        path = source_file(module)
        tree = _tree(path) if path is not None else None
        if path is None or tree is None or not qualname:
            return None
        node = _lookup(tree.body, qualname)
        if node is not None:
            return Definition(module, qualname, path, node)
        origin = _imported_from(tree, qualname.split(".")[0], module, path)
        if origin is None:
            return None
        module, qualname = origin
    return None


def _lookup(scope: list[ast.stmt], qualname: str) -> ast.AST | None:
    node: ast.AST | None = None
    for part in qualname.split("."):
        node = next((n for n in scope if isinstance(n, _DEFS) and n.name == part), None)
        if node is None:
            return _assignment(scope, part)
        scope = node.body
    return node


def _assignment(scope: list[ast.stmt], name: str) -> ast.AST | None:
    for n in scope:
        if isinstance(n, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in n.targets
        ):
            return n
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.target.id == name:
            return n
    return None


def _imported_from(tree: ast.Module, name: str, module: str, path: Path) -> tuple[str, str] | None:
    """Where ``name`` is imported from in ``tree`` (``from X import name``), if it is."""
    for node in ast.walk(tree):
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


def signature_and_doc(target: str) -> tuple[str, str] | None:
    """``("Name(params)", docstring)`` of ``module:qualname``, or ``None``. A component
    that is a value (``name = ...``) is documented by the string right after it (an
    attribute docstring, as Sphinx reads them)."""
    found = find(target)
    if found is None:
        return None
    described = _describe(found.node, found.qualname.split(".")[-1])
    if described is not None and isinstance(found.node, (ast.Assign, ast.AnnAssign)):
        return described[0], _attribute_doc(found.path, found.node)
    return described


def _attribute_doc(path: Path, node: ast.AST) -> str:
    """The string literal that follows the assignment ``node`` in its block, or ``""``."""
    tree = _tree(path)
    for parent in ast.walk(tree) if tree is not None else ():
        body = getattr(parent, "body", None)
        if not isinstance(body, list) or node not in body:
            continue
        after = body[body.index(node) + 1 : body.index(node) + 2]
        value = after[0].value if after and isinstance(after[0], ast.Expr) else None
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return inspect.cleandoc(value.value)
    return ""


def signature_from_source(source: str, qualname: str) -> tuple[str, str] | None:
    """``("Name(params)", docstring)`` of a class or function defined in ``source``."""
    node = _lookup(ast.parse(source).body, qualname)
    return None if node is None else _describe(node, qualname.split(".")[-1])


def _describe(node: ast.AST, name: str) -> tuple[str, str] | None:
    if isinstance(node, ast.ClassDef):
        init = _init_of(node)
        params = _params(init.args, drop_self=True) if init is not None else "..."
        return f"{node.name}({params})", ast.get_docstring(node) or ""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return f"{node.name}({_params(node.args)})", ast.get_docstring(node) or ""
    if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
        return f"{name} = {ast.unparse(node.value)}", ""
    return None


def _init_of(node: ast.ClassDef) -> ast.FunctionDef | None:
    return next(
        (n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None
    )


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


def kind_doc(target: str) -> str:
    """The ``doc=`` string of the ``Kind(...)`` (or ``Kind.of_callables(...)``) that
    ``target`` is assigned from; ``""`` when it is not a literal."""
    found = find(target)
    value = getattr(found.node, "value", None) if found is not None else None
    if not isinstance(value, ast.Call):
        return ""
    for keyword in value.keywords:
        if keyword.arg == "doc" and isinstance(keyword.value, ast.Constant):
            return str(keyword.value.value)
    return ""


def target_problem(target: str) -> str | None:
    """Why ``module:qualname`` cannot load, read from source; ``None`` when it looks right,
    or when the source cannot tell (a compiled module, ``__getattr__``, ``import *``)."""
    module, _, qualname = target.partition(":")
    path = source_file(module)
    if path is None:
        if _top_level(module.split(".")[0], catalog.generation) is None:
            return f"no module {module!r} is installed"
        parent = source_file(module.rpartition(".")[0]) if "." in module else None
        if parent is None or parent.name != "__init__.py":
            return None  # an extension module, a namespace package: cannot tell
        siblings = sorted(p.stem for p in parent.parent.glob("*.py") if p.stem != "__init__")
        close = difflib.get_close_matches(module.rpartition(".")[2], siblings, n=3, cutoff=0.7)
        hint = f" (close matches: {', '.join(close)})" if close else ""
        return f"no module {module!r} in {parent.parent}{hint}"
    first = qualname.split(".")[0]
    if not qualname or _mentions(path, first) or find(target) is not None:
        return None  # the name is in the file: parsing it to be sure costs too much here
    tree = _tree(path)
    if tree is None or _defines_dynamically(tree):
        return None
    names = sorted(_top_level_names(tree))
    if first in names:
        return None  # defined, but its attribute is not readable from source
    close = difflib.get_close_matches(first, names, n=3, cutoff=0.7)
    hint = f" (close matches: {', '.join(close)})" if close else ""
    return f"{module} does not define {first!r}{hint}"


@functools.lru_cache(maxsize=512)
def _text(path: Path, mtime: float) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


def _mentions(path: Path, name: str) -> bool:
    """Whether ``name`` appears as a word in the file (a cheap test before parsing)."""
    try:
        text = _text(path, path.stat().st_mtime)
    except OSError:
        return True
    return re.search(rf"\b{re.escape(name)}\b", text) is not None


def _defines_dynamically(tree: ast.Module) -> bool:
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "__getattr__":
            return True
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            return True
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Tuple) and any(getattr(e, "id", "") == "__getattr__" for e in t.elts)
            for t in node.targets
        ):
            return True  # ``__getattr__, __dir__ = tw.lazy_exports(...)``
    return False


def _top_level_names(tree: ast.Module) -> set[str]:
    return _names_bound(tree.body)


def _names_bound(body: list[ast.stmt]) -> set[str]:
    names: set[str] = set()
    for node in body:
        if isinstance(node, _DEFS):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        elif isinstance(node, (ast.If, ast.Try, ast.With)):  # ``if TYPE_CHECKING:``, try/except
            inner = [*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", [])]
            inner += [s for h in getattr(node, "handlers", []) for s in h.body]
            names |= _names_bound(inner)
    return names
