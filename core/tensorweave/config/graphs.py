"""Layer graphs in a config: named nodes wired to each other by name.

A *graph block* is a table with a ``nodes`` table. Each node is one of:

- an input: ``x = { input = [64] }`` is ``tw.Input(shape=(64,), name="x")``: one
  example's shape, the batch dimension implied (as ``tw.Input(shape=)``), ``-1`` (or
  ``null``) marks another dynamic dimension and ``dtype`` (default ``"float32"``) may be
  given: ``t = { input = [], dtype = "int64" }``;
- a layer: a promise with ``inputs`` naming other nodes, passed positionally first:
  ``h = { "@layers" = "Linear.v1", inputs = ["x"], n_units = 32 }``. The promise may be
  of any kind whose component builds a layer (a ``tw.Module`` is one), e.g. a pack's
  whole architectures by name; a node that builds something else is refused at its path.
  A parameter typed as a layer (``lengths``, ``mask``, ``sample_weight``…: ``tw.Layer``,
  ``Layer | None`` or a list of layers) names nodes too, passed by keyword:
  ``rnn = { "@layers" = "RNN.v1", inputs = ["emb"], lengths = "n" }``;
- a reuse: ``h2 = { reuse = "h", inputs = ["x2"] }`` is ``h.reuse_with(x2)`` (shared
  state, e.g. a training copy or tied weights); other keys go to ``reuse_with``;
- a module: ``block = { inputs = ["x"], module = { inputs = ["a"], nodes = {...},
  output = "o" } }`` builds the inner nodes on the outer inputs (inner ``a`` is outer
  ``x``) and folds them into one ``tw.Module`` named ``block``. ``repeat = 8`` makes it 8
  copies of the inner nodes (``block/layer_0``…, each with its own variables) in a chain:
  each copy's output is the next one's first input, the other inputs go to every copy
  (a transformer's encoder layers: one template instead of 8 blocks of nodes).

A key a node does not take (a typo, ``repeat`` on a layer node) is refused at the node's
path with the closest key.

``share_state_with = "h"`` in a layer node passes the node ``h``; ``trainable = false`` in
a layer, reuse or module node freezes it (``Layer.freeze``). Every other key of the
block (``inputs``, ``outputs``, ``targets``, ``loss``, ``metrics``...) holds node names
(a string, a list or a table of strings), checked to exist; ``ConfigGraph`` gives the
nodes back by those names. Node names must not contain dots. Nodes may be listed in any
order; they are built in dependency order and a cycle is reported.

>>> import tensorweave as tw
>>> g = tw.config.resolve_graph({"nodes": {"x": {"input": [2]}}, "outputs": "x"})
>>> g["x"].shape, g.section["outputs"]
((None, 2), 'x')
"""

from __future__ import annotations

import collections.abc as cabc
import difflib
import inspect
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from tensorweave.config.errors import ConfigError, join_path
from tensorweave.config.promises import is_promise, promise_kind
from tensorweave.config.schema import params_of
from tensorweave.errors import ArgumentError
from tensorweave.graph import Graph, Input, Layer, Module, name_scope
from tensorweave.graph.dtypes import as_dtype


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


__all__ = ["ConfigGraph", "is_graph_block", "check_graph", "build_graph", "layer_keywords"]

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


class ConfigGraph:
    """The built nodes of a graph block, by name, and the block's other keys."""

    def __init__(self, nodes: dict[str, Layer], section: dict[str, Any]) -> None:
        self.nodes = nodes
        self.section = section

    def __getitem__(self, name: str) -> Layer:
        return self.nodes[name]

    def __contains__(self, name: object) -> bool:
        return name in self.nodes

    def layers(self, key: str) -> list[Layer]:
        """The nodes named by the block's key ``key`` (a name or a list of names)."""
        value = self.section.get(key)
        if value is None:
            return []
        names = [value] if isinstance(value, str) else list(value)
        return [self.nodes[n] for n in names]

    def graph(self, outputs: str = "outputs") -> Graph:
        """The ``tw.Graph`` ending in the nodes named by ``outputs`` (every Input found)."""
        outs = self.layers(outputs) or [list(self.nodes.values())[-1]]
        return Graph.build(inputs=None, outputs=outs)

    def __repr__(self) -> str:
        return f"ConfigGraph(nodes={list(self.nodes)})"


def _refs(
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


def _deps(
    spec: Any, names: frozenset[str] | set[str] = frozenset(), component: Any = None
) -> list[str]:
    return [name for _, name in _refs(spec, names, component)]


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
        takes = _takes_layers(p.hint)
        if takes and (takes != "or str" or _all_in(value, names)):
            out[p.name] = value
    return out


def _is_names(value: Any) -> bool:
    return isinstance(value, str) or (
        isinstance(value, list) and bool(value) and all(isinstance(v, str) for v in value)
    )


def _all_in(value: Any, names: frozenset[str] | set[str]) -> bool:
    return all(v in names for v in ([value] if isinstance(value, str) else value))


def _takes_layers(hint: Any) -> str | None:
    """``"layers"`` when ``hint`` admits a layer (or a sequence of them), ``"or str"``
    when it admits a string as well, else ``None``."""
    if inspect.isclass(hint):
        return "layers" if issubclass(hint, Layer) else None
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if not any(_takes_layers(a) for a in args):
            return None
        return "or str" if str in args else "layers"
    if origin in (list, tuple, cabc.Sequence) and args and _takes_layers(args[0]):
        return "layers"
    return None


def _order(
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
        for key, ref in _refs(spec, names, comps.get(name)):
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
        for ref in _deps(nodes[name], names, comps.get(name)):
            visit(ref, [*trail, name])
        state[name] = 2
        order.append(name)

    for name in nodes:
        visit(name, [])
    return order


def check_graph(
    r: Resolver, block: Mapping[str, Any], path: str, outer: frozenset[str] = frozenset()
) -> None:
    """Collect the problems of a graph block into ``r.errors``."""
    nodes = block["nodes"]
    npath = join_path(path, "nodes")
    for name in nodes:
        if not isinstance(name, str) or "." in name or not name:
            r.errors.append((join_path(npath, str(name)), "node names must be non-empty, no dots"))
    components = _components(r, nodes, npath, report=False)  # problems said in order below
    order = _order(nodes, path, r.errors, outer, components)
    for name in order:
        spec = nodes[name]
        sub = join_path(npath, name)
        if not isinstance(spec, Mapping):
            r.errors.append((sub, f"a node must be a table, got {spec!r}"))
            continue
        n_in = len(_deps({"inputs": spec.get("inputs", [])}))
        if "trainable" in spec and not isinstance(spec["trainable"], bool):
            r.errors.append((join_path(sub, "trainable"), "expected true or false"))
        if "input" in spec:
            shape = spec["input"]
            if not isinstance(shape, list) or any(
                d is not None and (not isinstance(d, int) or isinstance(d, bool) or d < -1)
                for d in shape
            ):
                r.errors.append(
                    (
                        join_path(sub, "input"),
                        f"expected a list of ints, one example's shape (the batch is "
                        f"implied; -1 for a dynamic size), got {shape!r}",
                    )
                )
            if "dtype" in spec:
                try:
                    as_dtype(spec["dtype"], "dtype", "the input")
                except ArgumentError as err:
                    r.errors.append((join_path(sub, "dtype"), str(err).split(": ", 1)[1]))
            _refuse_unknown(r, spec, sub, "an input node", INPUT_KEYS)
        elif "reuse" in spec:
            if not isinstance(spec["reuse"], str):
                r.errors.append((join_path(sub, "reuse"), "expected a node name"))
            else:
                allowed = _reuse_keys(r, nodes, spec["reuse"], npath)
                if allowed is not None:
                    what = f"a reuse of {spec['reuse']!r}"
                    _refuse_unknown(r, spec, sub, what, (*REUSE_KEYS, *sorted(allowed)))
        elif "module" in spec:
            inner = spec["module"]
            mpath = join_path(sub, "module")
            _refuse_unknown(r, spec, sub, "a module node", MODULE_KEYS)
            if not is_graph_block(inner) or not isinstance(inner.get("output"), str):
                r.errors.append((mpath, "a module needs a `nodes` table and an `output` name"))
                continue
            inner_inputs = inner.get("inputs", [])
            if not isinstance(inner_inputs, list) or len(inner_inputs) != n_in:
                r.errors.append(
                    (
                        mpath,
                        f"module inputs {inner_inputs!r} must list {n_in} names, "
                        "one per outer input",
                    )
                )
                continue
            check_graph(r, inner, mpath, frozenset(inner_inputs))
            repeat = spec.get("repeat", 1)
            if not isinstance(repeat, int) or isinstance(repeat, bool) or repeat < 1:
                r.errors.append(
                    (join_path(sub, "repeat"), f"expected a whole number >= 1, got {repeat!r}")
                )
            elif repeat > 1 and not inner_inputs:
                r.errors.append(
                    (join_path(sub, "repeat"), "a repeated module needs an input to chain")
                )
        elif is_promise(spec):
            wired = layer_keywords(spec, set(nodes) | outer, components.get(name))
            # a node name stands for the node: checked above, its type is the node's
            stand_ins = {
                k: NODE if isinstance(v, str) else [NODE] * len(v) for k, v in wired.items()
            }
            node = {**spec, **stand_ins}
            component = components.get(name)
            if "repeat" in spec and "repeat" not in _param_names(component):
                r.errors.append((join_path(sub, "repeat"), _REPEAT_A_MODULE))
                del node["repeat"]
            r.check_promise(node, sub, n_inputs=n_in, extra=NODE_KEYS, wired=tuple(wired))
        else:
            r.errors.append(
                (
                    sub,
                    "a node needs `input`, a component that builds a layer ('@layers', or "
                    "any kind whose components do), `reuse` or `module`",
                )
            )
    _check_refs(r, block, path, set(nodes) | outer)


def unknown_node(ref: str, names: Iterable[str]) -> str:
    """The message for a reference to no node: the closest name and every name.

    >>> unknown_node("encodr", ["x", "encoder"])
    "unknown node 'encodr'; did you mean 'encoder'? nodes: encoder, x"
    """
    known = sorted(names)
    close = difflib.get_close_matches(ref, known, n=1)
    hint = f" did you mean {close[0]!r}?" if close else ""
    return f"unknown node {ref!r};{hint} nodes: {', '.join(known)}"


def _refuse_unknown(
    r: Resolver, spec: Mapping[str, Any], path: str, what: str, allowed: Sequence[str]
) -> None:
    """Report every key of the node ``spec`` not among ``allowed``, at ``path``, with the
    closest allowed key: a typo or a key of another kind of node is never ignored."""
    for key in spec:
        if key in allowed:
            continue
        close = difflib.get_close_matches(str(key), allowed, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        r.errors.append(
            (
                join_path(path, str(key)),
                f"{what} does not take {key!r}.{hint} Keys: {', '.join(allowed)}.",
            )
        )


def _reuse_keys(
    r: Resolver, nodes: Mapping[str, Any], target: str, npath: str, depth: int = 0
) -> set[str] | None:
    """The options a reuse of the node ``target`` takes (what its ``reuse_with`` passes
    on: its component's parameters, those of a module's inner layers), or ``None`` when
    they cannot be told (an unknown component: reported elsewhere)."""
    spec = nodes.get(target)
    if not isinstance(spec, Mapping) or depth > 16:
        return None
    if "reuse" in spec and isinstance(spec["reuse"], str):
        return _reuse_keys(r, nodes, spec["reuse"], npath, depth + 1)
    if "module" in spec and is_graph_block(spec["module"]):
        inner, keys = spec["module"]["nodes"], set()
        ipath = join_path(join_path(join_path(npath, target), "module"), "nodes")
        for name in inner:
            found = _reuse_keys(r, inner, name, ipath, depth + 1)
            if found is None:
                return None
            keys |= found
        return keys
    if "input" in spec:
        return set()
    if not is_promise(spec):
        return None
    component = r.find(spec, join_path(npath, target), report=False)
    if not inspect.isclass(component):  # unknown, or a function: its layer's class untold
        return None
    reuse = getattr(component, "reuse_with", None)
    if reuse is None or reuse is Layer.reuse_with:  # rebuilt with its constructor's keywords
        keys = {p.name for p in params_of(component) if not _takes_layers(p.hint)}
    else:
        params = inspect.signature(reuse).parameters.values()
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
            return None
        keys = {p.name for p in params if p.kind is not inspect.Parameter.VAR_POSITIONAL}
    return keys - {"self", "name", "share_state_with"}


_REPEAT_A_MODULE = (
    "`repeat` repeats a module node, not a layer. Fix: wrap the layer(s) in a module node: "
    '`{ inputs = ["x"], repeat = N, module = { inputs = ["a"], nodes = { ... }, '
    'output = "..." } }`.'
)


def _param_names(component: Any) -> set[str]:
    try:
        return {p.name for p in params_of(component)} if component is not None else set()
    except (TypeError, ValueError):
        return set()


def _components(
    r: Resolver, nodes: Mapping[str, Any], npath: str, *, report: bool = True
) -> dict[str, Any]:
    """The component of every layer node, by node name (``None`` when not found)."""
    return {
        name: r.find(spec, join_path(npath, name), report=report)
        for name, spec in nodes.items()
        if isinstance(name, str) and is_promise(spec)
    }


def _check_refs(r: Resolver, block: Mapping[str, Any], path: str, names: set[str]) -> None:
    for key, value in block.items():
        if key in ("nodes", "module") or key.startswith("@"):
            continue
        if key == "inputs" and path.endswith("module"):
            continue
        refs = (
            value
            if isinstance(value, list)
            else (list(value.values()) if isinstance(value, Mapping) else [value])
        )
        for ref in refs:
            if isinstance(ref, str) and ref not in names:
                r.errors.append((join_path(path, key), unknown_node(ref, names)))


def build_graph(
    r: Resolver, block: Mapping[str, Any], path: str, bound: Mapping[str, Layer] | None = None
) -> ConfigGraph:
    """Build every node of a validated graph block, in dependency order."""
    nodes = block["nodes"]
    built: dict[str, Layer] = dict(bound or {})
    errors: list[tuple[str, str]] = []
    components = _components(r, nodes, join_path(path, "nodes"))
    for name in _order(nodes, path, errors, frozenset(built), components):
        spec = nodes[name]
        sub = join_path(join_path(path, "nodes"), name)
        ins = tuple(built[n] for n in _deps({"inputs": spec.get("inputs", [])}))
        try:
            if "input" in spec:
                shape = [None, *(None if d == -1 else d for d in spec["input"])]
                built[name] = Input(
                    batch_shape=shape,
                    dtype=spec.get("dtype", "float32"),
                    sparse=bool(spec.get("sparse", False)),
                    name=name,
                )
            elif "reuse" in spec:
                opts = {
                    k: r.build(v, join_path(sub, k))
                    for k, v in spec.items()
                    if k not in ("reuse", "inputs", "trainable")
                }
                built[name] = built[spec["reuse"]].reuse_with(*ins, name=name, **opts)
            elif "module" in spec:
                built[name] = _module(r, spec, name, sub, ins)
            else:
                component = components[name]
                extra: dict[str, Any] = {"name": name} if _takes_name(component) else {}
                if isinstance(spec.get("share_state_with"), str):
                    extra["share_state_with"] = built[spec["share_state_with"]]
                wired = layer_keywords(spec, set(built), component)
                for key, value in wired.items():
                    extra[key] = (
                        built[value] if isinstance(value, str) else [built[v] for v in value]
                    )
                built[name] = _layer_of(
                    r.build_promise(spec, sub, inputs=ins, extra=extra, skip=(*NODE_KEYS, *wired)),
                    spec,
                )
            if spec.get("trainable") is False:
                built[name].freeze()
        except ConfigError:
            raise
        except Exception as err:
            raise ConfigError([(sub, f"{type(err).__name__}: {err}")]) from err
    section = {k: v for k, v in block.items() if k != "nodes"}
    own = {k: v for k, v in built.items() if k in nodes}
    return ConfigGraph(own, section)


def _module(
    r: Resolver, spec: Mapping[str, Any], name: str, path: str, ins: tuple[Layer, ...]
) -> Module:
    """The module node ``spec``: its inner nodes built on ``ins``, folded into one module;
    with ``repeat = n``, ``n`` copies (``name/layer_0``…, each with its own variables) in a
    chain, each copy's output the next one's first input (the other inputs go to every
    copy), folded into one module."""
    inner = spec["module"]
    names, mpath = inner.get("inputs", []), join_path(path, "module")
    repeat = spec.get("repeat", 1)
    with name_scope(name):
        if repeat == 1:
            inner_graph = build_graph(r, inner, mpath, dict(zip(names, ins, strict=True)))
            return Module(list(ins), inner_graph[inner["output"]], name=name)
        current: list[Layer] = list(ins)
        for i in range(repeat):
            with name_scope(f"layer_{i}"):
                copy = build_graph(r, inner, mpath, dict(zip(names, current, strict=True)))
            current = [Module(current, copy[inner["output"]], name=f"layer_{i}"), *current[1:]]
    return Module(list(ins), current[0], name=name)


def _layer_of(value: Any, spec: Mapping[str, Any]) -> Layer:
    """``value`` when it is a layer: every node of a graph is one (any kind may build it)."""
    if isinstance(value, Layer):
        return value
    kind, comp = promise_kind(spec)  # type: ignore[misc]
    raise TypeError(
        f"{kind} component {comp} built a {type(value).__name__}, not a layer: every node of "
        "a graph is a tw.Layer (a tw.Module is one). Fix: name a component that builds "
        "layers here, or move this table out of the graph's nodes."
    )


def _takes_name(obj: Any) -> bool:
    """Whether a node's component has a ``name`` parameter (loss functions may not)."""
    try:
        target = obj.__init__ if inspect.isclass(obj) else obj
        # a decorated function may take ``name`` in one of its wrappers only
        level, seen = target, 0
        while level is not None and seen < 8:
            if "name" in inspect.signature(level, follow_wrapped=False).parameters:
                return True
            level, seen = getattr(level, "__wrapped__", None), seen + 1
        return False
    except (TypeError, ValueError):
        return False
