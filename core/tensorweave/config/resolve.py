"""Promise blocks: validate the whole tree, then build it depth-first through the registries.

A *promise* is a table with one ``"@kind"`` key naming a registered component; the other
keys are its parameters, which may be promises themselves, to any depth::

    [optimizer]
    "@optimizers" = "SGD.v1"
    learning_rate = 0.1
    momentum = 0.9

Only registries are consulted: a config cannot import ``module:Class``, evaluate code or
unpickle anything. ``validate`` walks the tree first and collects every problem (unknown
component, unknown or missing parameter, wrong type) with its dotted path; ``resolve``
builds only a tree that validated. Tables with a ``nodes`` table are layer graphs (see
``tensorweave.config.graphs``).

>>> import tensorweave as tw
>>> with tw.registry("demo_opts").scoped() as reg:
...     @reg.register("Scaled.v1")
...     def scaled(value: float, factor: int = 2) -> float:
...         return value * factor
...     resolve({"x": {"@demo_opts": "Scaled.v1", "value": 1.5}})
{'x': 3.0}
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping
from typing import Any

from tensorweave.config import graphs
from tensorweave.config.errors import ConfigError, Problems, join_path
from tensorweave.config.graph_checks import check_graph
from tensorweave.config.promises import META_KEYS, is_promise, promise_kind, promise_params
from tensorweave.config.resolver import SETTINGS, Block, CheckedStep, Plan, Section, lookup
from tensorweave.config.schema import (
    Param,
    accepts_var_keyword,
    check_type,
    params_of,
    without_unset,
)
from tensorweave.keywords import unknown_keyword
from tensorweave.registries import is_step_kind

__all__ = ["validate", "build", "resolve", "resolve_graph", "Resolver"]


class Resolver:
    """Validates (``check``) and builds (``build``) config trees; one per resolution.

    Validating, it looks each block's component up once (``find``) and records the block
    (``blocks``); building (made with the ``Plan`` of a validation), it reads them back.
    """

    def __init__(
        self, plan: Plan | None = None, sections: Mapping[str, Section] | None = None
    ) -> None:
        self.sections = dict(sections or {})  # top-level tables of settings, by key
        self.errors: list[tuple[str, str]] = []
        self.causes: list[BaseException] = []  # plugin failures behind some errors
        self.blocks: dict[str, Block] = {} if plan is None else dict(plan.blocks)
        self.building = plan is not None
        self._found: dict[str, tuple[Any, list[tuple[str, str]]]] = {}

    # -- validation --------------------------------------------------------------------
    def check(self, node: Any, path: str) -> None:
        """Collect every problem under ``node``."""
        found = promise_kind(node)
        if found is not None:
            self.check_promise(node, path)
        elif graphs.is_graph_block(node):
            check_graph(self, node, path)
        elif isinstance(node, Mapping):
            for k, v in node.items():
                if not path and k in self.sections:
                    self.check_section(v, k, self.sections[k])
                elif k not in META_KEYS:
                    self.check(v, join_path(path, k))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                self.check(v, join_path(path, i))

    def check_section(self, table: Any, path: str, section: Section) -> None:
        """Check a table of settings as the parameters of ``section.cls``."""
        if not isinstance(table, Mapping):
            self.errors.append((path, f"expected a table, got {table!r}"))
            return
        cls = section.cls
        self.blocks[path] = Block(path, SETTINGS, cls.__name__, cls, dict(table))
        spec = params_of(cls, skip=frozenset({"self"}))
        self.check_params(cls, f"[{path}]", spec, table, path, section=section)

    def find(self, node: Mapping[str, Any], path: str, *, report: bool = True) -> Any:
        """The component of the promise ``node`` at ``path``: looked up once while
        validating (its problem reported once, when ``report``), read from the plan while
        building."""
        if self.building:
            return self.blocks[path].component
        if path not in self._found:
            kind, name = promise_kind(node)  # type: ignore[misc]
            problems: list[tuple[str, str]] = []
            obj = lookup(
                kind,
                name,
                join_path(path, f"@{kind}"),
                problems,
                recorded=node.get("@provider"),
                causes=self.causes,
            )
            self._found[path] = (obj, problems)
        obj, problems = self._found[path]
        if report and problems:
            self.errors += problems
            self._found[path] = (obj, [])  # reported once
        return obj

    def check_promise(
        self,
        node: Mapping[str, Any],
        path: str,
        *,
        n_inputs: int = 0,
        extra: tuple[str, ...] = (),
        wired: tuple[str, ...] = (),
    ) -> Any:
        """Check one promise; ``n_inputs`` positional parameters are filled by graph inputs,
        ``extra`` keys are the graph's and ``wired`` ones hold nodes (not recorded)."""
        kind, name = promise_kind(node)  # type: ignore[misc]
        n_inputs = max(n_inputs, is_step_kind(kind))  # a step's value is fed when it runs
        obj = self.find(node, path)
        params = {k: v for k, v in promise_params(node).items() if k not in extra}
        if obj is None:
            for k, v in params.items():
                self.check(v, join_path(path, k))
            return None
        spec = params_of(obj)
        params = without_unset(params, spec)
        kept = {k: v for k, v in params.items() if k not in wired}
        self.blocks[path] = Block(path, kind, name, obj, kept, n_inputs)
        self.check_params(obj, name, spec, params, path, n_inputs=n_inputs)
        return obj

    def check_params(
        self,
        obj: Any,
        name: str,
        spec: list[Param],
        params: Mapping[str, Any],
        path: str,
        *,
        n_inputs: int = 0,
        section: Section | None = None,
    ) -> None:
        by_name = {p.name: p for p in spec}
        positional = [p for p in spec if p.positional]
        fed = {p.name for p in positional[:n_inputs]}
        if (
            n_inputs
            and len(positional) < n_inputs
            and not any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in spec)
        ):
            self.errors.append(
                (path, f"{name} takes {len(positional)} input(s), {n_inputs} were given")
            )
        open_kw = accepts_var_keyword(spec)
        for key, value in params.items():
            sub = join_path(path, key)
            p = by_name.get(key)
            if p is None or p.kind is inspect.Parameter.VAR_POSITIONAL or key in fed:
                if p is None and open_kw:
                    self.check(value, sub)
                    continue
                known = [q.name for q in spec if q.name not in fed and q.kind.value in (0, 1, 3)]
                if key in fed:
                    problem = f"{key!r} is filled by the node's inputs of {name}."
                    problem += f" Parameters: {', '.join(known)}."
                elif section is not None and section.unknown is not None:
                    problem = section.unknown(key, known)
                else:  # the words a Python call gets too (tensorweave.keywords)
                    problem = unknown_keyword(key, name, known)
                self.errors.append((sub, problem))
                self.check(value, sub)
                continue
            found = len(self.errors)
            self.check_value(value, p.hint, sub)
            if section is not None and section.check is not None and len(self.errors) == found:
                wrong = section.check(sub, value)
                if wrong:
                    self.errors.append((sub, wrong))
        given = set(params)
        for p in spec:
            if p.required and p.name not in given and p.name not in fed:
                if n_inputs == 0 and p.positional and p is positional[0] and _is_layer_hint(p):
                    self.errors.append((path, f"{name} needs an input layer ({p.name!r})"))
                    continue
                self.errors.append(
                    (
                        join_path(path, p.name),
                        f"missing required parameter of {name} ({p.type_name})",
                    )
                )

    def check_value(self, value: Any, hint: Any, path: str) -> None:
        if is_promise(value):
            obj = self.check_promise(value, path)
            # typing.Any is a class on Python 3.11 (issubclass(X, Any) raises): it and
            # an unannotated parameter take any component, as ``object`` does.
            if obj is not None and inspect.isclass(obj) and _is_class_hint(hint):
                try:
                    if not issubclass(obj, hint):
                        self.errors.append(
                            (path, f"expected {hint.__name__}, got a {obj.__name__} component")
                        )
                except TypeError:
                    pass
            return
        if graphs.is_graph_block(value) or _contains_promise(value):
            self.check(value, path)
            return
        problem = check_type(value, hint)
        if problem:
            if problem.startswith("["):
                self.errors.append((path + problem.split(":", 1)[0], problem.split(": ", 1)[1]))
            else:
                self.errors.append((path, problem))

    # -- building ----------------------------------------------------------------------
    def build(self, node: Any, path: str) -> Any:
        """Build ``node`` depth-first (call only on a tree that passed ``check``)."""
        found = promise_kind(node)
        if found is not None:
            if is_step_kind(found[0]):  # kept as data, with the block checked
                return CheckedStep(node, self.blocks[path])
            return self.build_promise(node, path)
        block = self.blocks.get(path)
        if block is not None and block.kind == SETTINGS:
            return block.component(**block.params)
        if graphs.is_graph_block(node):
            return graphs.build_graph(self, node, path)
        if isinstance(node, Mapping):
            return {
                k: self.build(v, join_path(path, k)) for k, v in node.items() if k not in META_KEYS
            }
        if isinstance(node, list):
            return [self.build(v, join_path(path, i)) for i, v in enumerate(node)]
        return node

    def build_promise(
        self,
        node: Mapping[str, Any],
        path: str,
        *,
        inputs: tuple[Any, ...] = (),
        extra: Mapping[str, Any] | None = None,
        skip: tuple[str, ...] = (),
    ) -> Any:
        block = self.blocks[path]  # validated: the plan has it
        kind, name, obj = block.kind, block.name, block.component
        params = {k: v for k, v in block.params.items() if k not in skip}
        kwargs = {k: self.build(v, join_path(path, k)) for k, v in params.items()}
        kwargs.update(extra or {})
        try:
            return obj(*inputs, **kwargs)
        except ConfigError:
            raise
        except Exception as err:
            raise ConfigError(
                [(path, f"building {kind} component {name} failed: {type(err).__name__}: {err}")]
            ) from err


def _is_class_hint(hint: Any) -> bool:
    return inspect.isclass(hint) and hint not in (Any, object, inspect.Parameter.empty)


def _is_layer_hint(p: Param) -> bool:
    return "Layer" in p.type_name


def _contains_promise(value: Any) -> bool:
    if is_promise(value):
        return True
    if isinstance(value, Mapping):
        return any(_contains_promise(v) for v in value.values())
    if isinstance(value, list):
        return any(_contains_promise(v) for v in value)
    return False


def validate(cfg: Mapping[str, Any], *, sections: Mapping[str, Section] | None = None) -> Plan:
    """Check ``cfg`` once: its ``Plan``, a list of every problem as ``(dotted_path,
    message)`` (empty when it can be built) with every block found (``plan.blocks``).
    ``sections``: top-level tables of plain settings, checked (and built) as the
    parameters of their ``Section``'s class.

    The list also carries the exceptions of plugins that failed to load (``.causes``):
    ``ConfigError(validate(cfg))`` chains the first, so ``--traceback`` reaches the
    plugin's own frames.
    """
    r = Resolver(sections=sections)
    r.check(cfg, "")
    return Plan(cfg, r.blocks.values(), dict.fromkeys(r.errors), causes=r.causes)


def build(plan: Plan, keys: Iterable[str] | None = None) -> Any:
    """Build the config ``plan`` validated (only its top-level ``keys``, when given) from
    the plan's blocks: nothing is looked up or validated again. A plan with problems
    raises them as one ``ConfigError``."""
    if plan:
        raise ConfigError(plan)
    r = Resolver(plan)
    if keys is None:
        return r.build(plan.config, "")
    return {k: r.build(plan.config[k], k) for k in keys if k in plan.config}


def resolve(cfg: Mapping[str, Any]) -> Any:
    """Validate ``cfg`` (raising one ``ConfigError`` with every problem), then build it.

    Promises become the objects their components return; graph blocks become
    ``ConfigGraph`` objects; plain values stay as they are.
    """
    return build(validate(cfg))


def resolve_graph(block: Mapping[str, Any], path: str = "") -> graphs.ConfigGraph:
    """Validate then build one graph block (as ``resolve`` does for each in a config)."""
    r = Resolver()
    check_graph(r, block, path)
    if r.errors:
        raise ConfigError(Problems(dict.fromkeys(r.errors), causes=r.causes))
    return graphs.build_graph(Resolver(Plan(block, r.blocks.values())), block, path)
