"""``tensorweave train CONFIG --help``: the parameters of the components a config selects.

Every promise in the config (and every layer node of its graph) is listed with its
registered name, its provider, and each parameter as an override flag with its type and
its current value or default, so swapping a component changes the help (choosing
``SGD.v1`` lists ``momentum``, not Adam's ``beta_1``). A component inside a list (the
``callbacks``) is listed with its parameters but no flags: overrides cannot reach into
lists, so those are set in the config file.

>>> text = config_help({"train": {"epochs": 2}, "opt": {"@optimizers": "Nope.v1"}})
>>> [line.split() for line in text.splitlines() if "--train.epochs" in line]
[['--train.epochs', 'int', '=', '2']]
>>> [line for line in text.splitlines() if line.startswith("opt")]
["opt: Nope.v1 — unavailable: unknown optimizers component 'Nope.v1'; `tensorweave plugins` lists what is installed"]
>>> listed = config_help({"callbacks": [{"@callbacks": "EarlyStopping.v1", "patience": 2}]})
>>> [line.split()[0] for line in listed.splitlines() if "patience" in line]
['callbacks.0.patience']
"""

from __future__ import annotations

import json
from typing import Any

import tensorweave.config as twc

__all__ = ["config_help"]


def _fmt(value: Any) -> str:
    return (
        json.dumps(value)
        if isinstance(value, (str, list, dict, bool)) or value is None
        else (repr(value))
    )


def _row(flag: str, type_name: str, now: str) -> str:
    return (
        f"  {flag:<36} {type_name:<22} {now}"
        if len(flag) <= 36
        else (f"  {flag}\n  {'':<36} {type_name:<22} {now}")
    )


def config_help(cfg: dict[str, Any]) -> str:
    """The parameters of every component ``cfg`` selects, as override flags."""
    from tensorweave_train.runs.job import SECTIONS

    lines: list[str] = []
    rest = {k: v for k, v in cfg.items() if k not in SECTIONS}
    plan = twc.validate(rest)  # every block looked up once (creates no registry for a typo)

    def promise(
        node: dict[str, Any], path: str, where: str, n_inputs: int = 0, overridable: bool = True
    ) -> None:
        """``path``: the flags' path (``callbacks.0``), ``where`` the plan's (``callbacks[0]``)."""
        kind, name = twc.promise_kind(node)  # type: ignore[misc]
        block = plan.blocks.get(where)
        if block is None:
            at = f"{where}.@{kind}" if where else f"@{kind}"
            problem = next((m for p, m in plan if p == at), "not found")
            lines.append(f"\n{path}: {name} — unavailable: {problem}")
            return
        obj = block.component
        provider = twc.registered(kind, name)[1]
        fixed = "" if overridable else "; in a list: set in the config file, not by --flags"
        lines.append(f"\n{path or '<root>'}: {name} ({kind}, from {provider}{fixed})")
        fed = 0
        for p in twc.params_of(obj):
            if p.positional and fed < n_inputs:
                fed += 1
                continue
            if p.kind.name.startswith("VAR"):
                continue
            if p.name in node:
                now = f"= {_fmt(node[p.name])}"
            else:
                now = "(required)" if p.required else f"default {_fmt(twc.plain(p.default))}"
            flag = f"--{path}.{p.name}" if overridable else f"{path}.{p.name}"
            lines.append(_row(flag, p.type_name, now))

    def walk(node: Any, path: str, where: str, overridable: bool = True) -> None:
        if twc.is_promise(node):
            promise(node, path, where, overridable=overridable)
            for k, v in node.items():
                if isinstance(v, (dict, list)) and not str(k).startswith("@"):
                    walk(v, f"{path}.{k}", f"{where}.{k}", overridable)
        elif twc.is_graph_block(node):
            for name, spec in node["nodes"].items():
                sub, at = f"{path}.nodes.{name}", f"{where}.nodes.{name}"
                if twc.is_promise(spec):
                    ins = spec.get("inputs", [])
                    promise(spec, sub, at, 1 if isinstance(ins, str) else len(ins))
                elif isinstance(spec, dict) and "input" in spec:
                    lines.append(f"\n{sub}: input, shape {spec['input']} {spec.get('dtype', '')}")
                elif isinstance(spec, dict) and "module" in spec:
                    walk(spec["module"], f"{sub}.module", f"{at}.module")
        elif isinstance(node, dict):
            for k, v in node.items():
                walk(v, f"{path}.{k}" if path else k, f"{where}.{k}" if where else k, overridable)
        elif isinstance(node, list):  # overrides cannot reach inside a list
            for i, v in enumerate(node):
                walk(v, f"{path}.{i}", f"{where}[{i}]", overridable=False)

    for section, cls in SECTIONS.items():
        lines.append(f"\n[{section}]")
        for p in twc.params_of(cls, skip=frozenset({"self"})):
            value = cfg.get(section, {}).get(p.name, p.default)
            lines.append(_row(f"--{section}.{p.name}", p.type_name, f"= {_fmt(value)}"))
    walk(rest, "", "")
    return "\n".join(lines).lstrip("\n")
