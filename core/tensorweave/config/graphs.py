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

import inspect
from collections.abc import Mapping
from typing import Any

from tensorweave.config.errors import ConfigError, join_path
from tensorweave.config.graph_nodes import (
    NODE_KEYS,
    Resolver,
    dependency_order,
    is_graph_block,
    layer_keywords,
    node_components,
    node_deps,
)
from tensorweave.config.promises import promise_kind
from tensorweave.graph import Graph, Input, Layer, Module, name_scope

__all__ = ["ConfigGraph", "is_graph_block", "build_graph"]


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


def build_graph(
    r: Resolver, block: Mapping[str, Any], path: str, bound: Mapping[str, Layer] | None = None
) -> ConfigGraph:
    """Build every node of a validated graph block, in dependency order."""
    nodes = block["nodes"]
    built: dict[str, Layer] = dict(bound or {})
    errors: list[tuple[str, str]] = []
    components = node_components(r, nodes, join_path(path, "nodes"))
    for name in dependency_order(nodes, path, errors, frozenset(built), components):
        spec = nodes[name]
        sub = join_path(join_path(path, "nodes"), name)
        ins = tuple(built[n] for n in node_deps({"inputs": spec.get("inputs", [])}))
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
