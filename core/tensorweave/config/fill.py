"""``fill``: the config with every default written out, who provided each component, and
the library versions, so that the file alone reproduces a run.

Each promise gets its missing parameters with their defaults, its exact versioned name
(``"Linear"`` becomes ``"Linear.v1"``) and an ``"@provider"`` (``"my-pack
0.1.0"``); the root gets ``"@versions"`` (tensorweave, tensorflow, python and every plugin
distribution). Defaults that are not plain data (a function, say) are left out and listed
under ``"@note"``. ``save`` writes JSON, which ``load`` reads back (TOML has no ``null``).

>>> import tensorweave as tw
>>> with tw.registry("demo_fill").scoped() as reg:
...     @reg.register("Step.v1")
...     def step(size: float, decay: float = 0.5, label: str | None = None): ...
...     out = fill({"s": {"@demo_fill": "Step", "size": 1.0}})
>>> out["s"]
{'@demo_fill': 'Step.v1', 'size': 1.0, 'decay': 0.5, 'label': None, '@provider': 'local'}
>>> sorted(out["@versions"])
['plugins', 'python', 'tensorflow', 'tensorweave']
"""

from __future__ import annotations

import copy
import enum
import inspect
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tensorweave.config.errors import ConfigError, join_path
from tensorweave.config.graph_nodes import NODE_KEYS, is_graph_block
from tensorweave.config.promises import META_KEYS, is_promise, promise_params
from tensorweave.config.resolve import validate
from tensorweave.config.resolver import Block, Plan, registered
from tensorweave.config.schema import params_of, without_unset
from tensorweave.registries import library_versions

__all__ = ["fill", "save", "plain"]

_UNSET = object()


def plain(value: Any) -> Any:
    """``value`` as JSON-able data, or a sentinel when it has no plain form."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, enum.Enum):
        return plain(value.value)
    if isinstance(value, (list, tuple)):
        items = [plain(v) for v in value]
        return _UNSET if any(i is _UNSET for i in items) else items
    if isinstance(value, Mapping):
        out = {str(k): plain(v) for k, v in value.items()}
        return _UNSET if any(v is _UNSET for v in out.values()) else out
    name = getattr(value, "name", None)  # tf.DType and friends
    if type(value).__name__ == "DType" and isinstance(name, str):
        return name
    return _UNSET


def _fill_promise(
    node: dict[str, Any], block: Block, n_inputs: int, skip: tuple[str, ...]
) -> dict[str, Any]:
    kind, obj = block.kind, block.component
    exact, provider = registered(kind, block.name)
    node[f"@{kind}"] = exact
    node_out = dict(node)
    spec = params_of(obj)
    kept = without_unset(promise_params(node_out), spec)  # ``null`` drops a key not taken
    node_out = {k: v for k, v in node_out.items() if k in kept or k in skip or k.startswith("@")}
    notes = []
    positional = 0
    for p in spec:
        if p.positional and positional < n_inputs:
            positional += 1
            continue
        if p.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            continue
        if p.name in node_out or p.name in skip or p.required:
            continue
        value = plain(p.default)
        if value is _UNSET:
            notes.append(f"{p.name}: default {p.default!r} is not plain data, left to the code")
        else:
            node_out[p.name] = value
    node_out["@provider"] = provider
    if notes:
        node_out["@note"] = notes
    return node_out


def _walk(node: Any, plan: Plan, path: str, n_inputs: int = 0, skip: tuple[str, ...] = ()) -> Any:
    if is_promise(node):
        filled = _fill_promise(dict(node), plan.block(path), n_inputs, skip)
        return {
            k: (v if k.startswith("@") else _walk(v, plan, join_path(path, k)))
            for k, v in filled.items()
        }
    if is_graph_block(node):
        out = dict(node)
        nodes = {}
        for name, spec in node["nodes"].items():
            sub = join_path(join_path(path, "nodes"), name)
            if is_promise(spec):
                ins = spec.get("inputs", [])
                n = 1 if isinstance(ins, str) else len(ins) if isinstance(ins, list) else 0
                nodes[name] = _walk(spec, plan, sub, n, NODE_KEYS)
            elif isinstance(spec, Mapping) and "module" in spec:
                nodes[name] = {
                    **spec,
                    "module": _walk(spec["module"], plan, join_path(sub, "module")),
                }
            else:
                nodes[name] = spec
        out["nodes"] = nodes
        return out
    if isinstance(node, Mapping):
        return {
            k: (v if k in META_KEYS else _walk(v, plan, join_path(path, k)))
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_walk(v, plan, join_path(path, i)) for i, v in enumerate(node)]
    return node


def fill(cfg: Mapping[str, Any] | Plan) -> dict[str, Any]:
    """A copy of ``cfg`` with defaults, exact names, providers and versions: ``cfg`` is the
    ``Plan`` of a validation (``validate(cfg)``), used as it is, or a config, validated."""
    plan = cfg if isinstance(cfg, Plan) else validate(cfg)
    if plan:
        raise ConfigError(plan)
    out = _walk(copy.deepcopy(dict(plan.config)), plan, "")
    out["@versions"] = library_versions()
    return out


def save(cfg: Mapping[str, Any], path: str | Path) -> Path:
    """Write ``cfg`` (usually ``fill(cfg)``) as JSON to ``path`` and return the path."""
    p = Path(path)
    if p.suffix.lower() != ".json":
        raise ConfigError([("", f"save writes JSON (TOML has no null); use a .json path, not {p}")])
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(cfg, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    tmp.replace(p)
    return p
