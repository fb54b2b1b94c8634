"""Validating a config's graph block: every problem of every node collected with its path
(a wrong input shape, a reuse option the reused layer does not take, a module without an
output, an unknown key with the closest one, a reference to no node), before anything is built.

>>> import tensorweave as tw
>>> try:
...     tw.config.resolve_graph({"nodes": {"x": {"input": [2], "dtpye": "int64"}}})
... except tw.config.ConfigError as err:
...     print(str(err).splitlines()[-1].strip())
nodes.x.dtpye: an input node does not take 'dtpye'. Did you mean 'dtype'? Keys: input, dtype, sparse.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Mapping, Sequence
from typing import Any

from tensorweave.config.errors import join_path
from tensorweave.config.graph_nodes import (
    INPUT_KEYS,
    MODULE_KEYS,
    NODE,
    NODE_KEYS,
    REUSE_KEYS,
    Resolver,
    dependency_order,
    is_graph_block,
    layer_keywords,
    node_components,
    node_deps,
    takes_layers,
    unknown_node,
)
from tensorweave.config.promises import is_promise
from tensorweave.config.schema import params_of
from tensorweave.errors import ArgumentError
from tensorweave.graph import Layer
from tensorweave.graph.dtypes import as_dtype

__all__ = ["check_graph"]


def check_graph(
    r: Resolver, block: Mapping[str, Any], path: str, outer: frozenset[str] = frozenset()
) -> None:
    """Collect the problems of a graph block into ``r.errors``."""
    nodes = block["nodes"]
    npath = join_path(path, "nodes")
    for name in nodes:
        if not isinstance(name, str) or "." in name or not name:
            r.errors.append((join_path(npath, str(name)), "node names must be non-empty, no dots"))
    components = node_components(r, nodes, npath, report=False)  # problems said in order below
    order = dependency_order(nodes, path, r.errors, outer, components)
    for name in order:
        spec = nodes[name]
        sub = join_path(npath, name)
        if not isinstance(spec, Mapping):
            r.errors.append((sub, f"a node must be a table, got {spec!r}"))
            continue
        n_in = len(node_deps({"inputs": spec.get("inputs", [])}))
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
        keys = {p.name for p in params_of(component) if not takes_layers(p.hint)}
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
