"""The vocabulary of a config's graph block: what a node is, which nodes it reads, and the
order they are built in (shared by ``graph_checks``, which validates a block, and ``graphs``,
which builds it).

>>> dependency_order({"x": {"input": [2]}, "h": {"inputs": ["x"]}}, "model", [])
['x', 'h']
>>> unknown_node("encodr", ["x", "encoder"])
"unknown node 'encodr'; did you mean 'encoder'? nodes: encoder, x"
"""

from __future__ import annotations

import collections.abc as cabc
import difflib
import inspect
import types
import typing
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from tensorweave.config.errors import join_path
from tensorweave.config.promises import is_promise, promise_kind
from tensorweave.config.schema import params_of
from tensorweave.graph import Layer

__all__ = [
    "Resolver",
    "NODE_KEYS",
    "INPUT_KEYS",
    "MODULE_KEYS",
    "REUSE_KEYS",
    "NODE",
    "is_graph_block",
    "node_refs",
    "node_deps",
    "layer_keywords",
    "takes_layers",
    "dependency_order",
    "node_components",
    "unknown_node",
]


class Resolver(Protocol):
    """What checks and builds the promises of a graph (``resolve.Resolver``; this module
    does not import it: ``resolve`` imports this one)."""

    errors: list[tuple[str, str]]

    def find(self, node: Mapping[str, Any], path: str, *, report: bool = True) -> Any: ...

    def check_promise(
        self,
        node: Mapping[str, Any],
        path: str,
        *,
        n_inputs: int = 0,
        extra: tuple[str, ...] = (),
        wired: tuple[str, ...] = (),
    ) -> Any: ...

    def build(self, node: Any, path: str) -> Any: ...

    def build_promise(
        self,
        node: Mapping[str, Any],
        path: str,
        *,
        inputs: tuple[Any, ...] = (),
        extra: Mapping[str, Any] | None = None,
        skip: tuple[str, ...] = (),
    ) -> Any: ...


NODE_KEYS = ("inputs", "reuse", "module", "share_state_with", "trainable")
INPUT_KEYS = ("input", "dtype", "sparse")
MODULE_KEYS = ("inputs", "module", "repeat", "trainable")
REUSE_KEYS = ("reuse", "inputs", "trainable")


class _NodeRef:
    """What a node name given for a layer-typed parameter stands for while validating."""

    def __repr__(self) -> str:
        return "<node>"


NODE = _NodeRef()


def is_graph_block(node: Any) -> bool:
    """A table with a ``nodes`` table (and no ``@kind`` key)."""
    return (
        isinstance(node, Mapping)
        and isinstance(node.get("nodes"), Mapping)
        and not (is_promise(node))
    )


def node_refs(
    spec: Any, names: frozenset[str] | set[str] = frozenset(), component: Any = None
) -> list[tuple[str, str]]:
    """``(key, node name)`` for every node ``spec`` reads: its inputs, the node it reuses
    or shares state with, and the layer-typed keyword parameters of its ``component``."""
    if not isinstance(spec, Mapping):
        return []
    given = spec.get("inputs", [])
    given = [given] if isinstance(given, str) else given if isinstance(given, list) else []
    refs = [("inputs", r) for r in given if isinstance(r, str)]
    for key in ("reuse", "share_state_with"):
        if isinstance(spec.get(key), str):
            refs.append((key, spec[key]))
    for key, value in layer_keywords(spec, names, component).items():
        refs += [(key, v) for v in ([value] if isinstance(value, str) else value)]
    return refs


def node_deps(
    spec: Any, names: frozenset[str] | set[str] = frozenset(), component: Any = None
) -> list[str]:
    return [name for _, name in node_refs(spec, names, component)]


def layer_keywords(
    spec: Any, names: frozenset[str] | set[str] = frozenset(), component: Any = None
) -> dict[str, Any]:
    """The parameters of a layer node (whose promise names ``component``) that name other
    nodes: those typed as a layer (or a list of layers) given a node name (or a list of
    them). A parameter that also takes a string names a node only when its value is one
    of ``names``."""
    if component is None or promise_kind(spec) is None:
        return {}
    out: dict[str, Any] = {}
    for p in params_of(component):
        value = spec.get(p.name)
        if p.name in NODE_KEYS or not _is_names(value):
            continue
        takes = takes_layers(p.hint)
        if takes and (takes != "or str" or _all_in(value, names)):
            out[p.name] = value
    return out


def _is_names(value: Any) -> bool:
    return isinstance(value, str) or (
        isinstance(value, list) and bool(value) and all(isinstance(v, str) for v in value)
    )


def _all_in(value: Any, names: frozenset[str] | set[str]) -> bool:
    return all(v in names for v in ([value] if isinstance(value, str) else value))


def takes_layers(hint: Any) -> str | None:
    """``"layers"`` when ``hint`` admits a layer (or a sequence of them), ``"or str"``
    when it admits a string as well, else ``None``."""
    if inspect.isclass(hint):
        return "layers" if issubclass(hint, Layer) else None
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if not any(takes_layers(a) for a in args):
            return None
        return "or str" if str in args else "layers"
    if origin in (list, tuple, cabc.Sequence) and args and takes_layers(args[0]):
        return "layers"
    return None


def dependency_order(
    nodes: Mapping[str, Any],
    path: str,
    errors: list[tuple[str, str]],
    outer: frozenset[str] = frozenset(),
    components: Mapping[str, Any] | None = None,
) -> list[str]:
    """Dependency order; unknown references and cycles go to ``errors``. ``components``:
    the component of each layer node, by node name."""
    names = set(nodes) | outer
    comps = components or {}
    for name, spec in nodes.items():
        for key, ref in node_refs(spec, names, comps.get(name)):
            if ref not in names:
                where = join_path(join_path(join_path(path, "nodes"), name), key)
                errors.append((where, unknown_node(ref, names)))
    order: list[str] = []
    state: dict[str, int] = {}

    def visit(name: str, trail: list[str]) -> None:
        if state.get(name) == 2 or name not in nodes:
            return
        if state.get(name) == 1:
            cycle = " -> ".join([*trail[trail.index(name) :], name])
            errors.append((join_path(path, "nodes"), f"the nodes form a cycle: {cycle}"))
            return
        state[name] = 1
        for ref in node_deps(nodes[name], names, comps.get(name)):
            visit(ref, [*trail, name])
        state[name] = 2
        order.append(name)

    for name in nodes:
        visit(name, [])
    return order


def node_components(
    r: Resolver, nodes: Mapping[str, Any], npath: str, *, report: bool = True
) -> dict[str, Any]:
    """The component of every layer node, by node name (``None`` when not found)."""
    return {
        name: r.find(spec, join_path(npath, name), report=report)
        for name, spec in nodes.items()
        if isinstance(name, str) and is_promise(spec)
    }


def unknown_node(ref: str, names: Iterable[str]) -> str:
    """The message for a reference to no node: the closest name and every name."""
    known = sorted(names)
    close = difflib.get_close_matches(ref, known, n=1)
    hint = f" did you mean {close[0]!r}?" if close else ""
    return f"unknown node {ref!r};{hint} nodes: {', '.join(known)}"
