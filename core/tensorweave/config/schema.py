"""The typed parameters of a registered component, read from its signature.

``params_of(obj)`` reads a class's constructor (dataclasses included) or a function with
``inspect.signature`` and ``typing.get_type_hints``; ``check_type(value, hint)`` says why a
plain config value does not fit a hint (``None`` when it fits). Hints that cannot be
resolved (e.g. names only imported under ``TYPE_CHECKING``) accept anything rather than
reject valid configs.

>>> def f(x, n_units: int, *, rate: float = 0.5, act: str | None = None): ...
>>> [(p.name, p.type_name, p.required) for p in params_of(f)]
[('x', 'Any', True), ('n_units', 'int', True), ('rate', 'float', False), ('act', 'str | None', False)]
>>> check_type("abc", int), check_type(3, float), check_type([1, "a"], list[int])
("expected int, got 'abc'", None, "[1]: expected int, got 'a'")
"""

from __future__ import annotations

import collections.abc as cabc
import inspect
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Param",
    "params_of",
    "check_type",
    "type_name",
    "accepts_var_keyword",
    "without_unset",
]

_EMPTY = inspect.Parameter.empty
_SKIP = {"self", "name", "share_state_with"}


@dataclass(frozen=True)
class Param:
    """One parameter of a component."""

    name: str
    hint: Any  # a resolved type hint, or Any
    default: Any  # inspect.Parameter.empty when required
    kind: inspect._ParameterKind
    doc: str = ""

    @property
    def required(self) -> bool:
        return self.default is _EMPTY and self.kind not in (
            inspect.Parameter.VAR_POSITIONAL,
            inspect.Parameter.VAR_KEYWORD,
        )

    @property
    def positional(self) -> bool:
        return self.kind in (
            inspect.Parameter.POSITIONAL_ONLY,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
        )

    @property
    def type_name(self) -> str:
        return type_name(self.hint)


def _target(obj: Any) -> Any:
    return obj.__init__ if inspect.isclass(obj) else obj


def _hints(obj: Any) -> dict[str, Any]:
    target = _target(obj)
    try:  # with ``Annotated`` rules (check_type runs them)
        return typing.get_type_hints(target, include_extras=True)
    except Exception:
        pass
    # Resolve one annotation at a time, keeping those that can be.
    raw = getattr(target, "__annotations__", {}) or {}
    module = inspect.getmodule(target)
    ns = dict(vars(module)) if module else {}
    out = {}
    for key, ann in raw.items():
        try:
            out[key] = typing.get_type_hints(
                types.SimpleNamespace(__annotations__={key: ann}), globalns=ns
            )[key]
        except Exception:
            out[key] = Any
    return out


def params_of(obj: Any, *, skip: frozenset[str] | set[str] = frozenset(_SKIP)) -> list[Param]:
    """The parameters of a component (class constructor or function), typed."""
    try:
        sig = inspect.signature(_target(obj))
    except (TypeError, ValueError):
        return []
    hints = _hints(obj)
    out = []
    for p in sig.parameters.values():
        if p.name in skip:
            continue
        out.append(Param(p.name, hints.get(p.name, Any), p.default, p.kind))
    return out


def accepts_var_keyword(params: list[Param]) -> bool:
    """Whether the component takes ``**kwargs`` (any extra parameter)."""
    return any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)


def without_unset(params: Mapping[str, Any], spec: list[Param]) -> dict[str, Any]:
    """``params`` without the keys set to ``None`` that the component does not take.

    ``null`` means "not given": after ``--init.@initializers=zeros`` switches a component,
    ``--init.stddev=null`` drops the old component's ``stddev`` instead of passing it to
    the new one. A key the component does take keeps its ``None``.

    >>> def zeros(shape: int = 1): ...
    >>> without_unset({"shape": None, "stddev": None, "mean": 0.0}, params_of(zeros))
    {'shape': None, 'mean': 0.0}
    """
    if accepts_var_keyword(spec):
        return dict(params)
    taken = {p.name for p in spec}
    return {k: v for k, v in params.items() if v is not None or k in taken}


def type_name(hint: Any) -> str:
    """A readable name of a type hint: ``int``, ``list[int]``, ``str | None``."""
    if typing.get_origin(hint) is typing.Annotated:
        return type_name(typing.get_args(hint)[0])
    if hint is Any or hint is _EMPTY:
        return "Any"
    if hint is Ellipsis:
        return "..."
    if hint is type(None):
        return "None"
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return " | ".join(type_name(a) for a in typing.get_args(hint))
    if origin is typing.Literal:
        return "one of " + ", ".join(repr(a) for a in typing.get_args(hint))
    if origin is not None:
        args = typing.get_args(hint)
        base = getattr(origin, "__name__", str(origin))
        return f"{base}[{', '.join(type_name(a) for a in args)}]" if args else base
    return getattr(hint, "__name__", str(hint))


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_type(value: Any, hint: Any) -> str | None:
    """Why ``value`` (plain config data) does not fit ``hint``; ``None`` if it does."""
    if hint is Any or hint is _EMPTY or hint is object:
        return None
    if isinstance(hint, typing.TypeVar):
        return None
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is typing.Annotated:
        problem = check_type(value, args[0])
        for extra in args[1:] if problem is None else ():
            # ``Annotated[str, rule]``: a rule with ``check_config_value(value)`` says why
            # the value is refused (``tensorweave.graph.ops.OP_NAME``: only safe ops)
            check = getattr(extra, "check_config_value", None)
            problem = problem or (check(value) if callable(check) else None)
        return problem
    if origin in (typing.Union, types.UnionType):
        problems = [check_type(value, a) for a in args]
        if any(p is None for p in problems):
            return None
        return f"expected {type_name(hint)}, got {_short(value)}"
    if origin is typing.Literal:
        return None if value in args else f"expected {type_name(hint)}, got {_short(value)}"
    if hint is type(None) or hint is None:
        return None if value is None else f"expected None, got {_short(value)}"
    if hint is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        return None if ok else f"expected float, got {_short(value)}"
    if hint is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        return None if ok else f"expected int, got {_short(value)}"
    if hint is bool:
        return None if isinstance(value, bool) else f"expected bool, got {_short(value)}"
    if hint is str:
        return None if isinstance(value, str) else f"expected str, got {_short(value)}"
    if origin is not None:
        return _check_generic(value, hint, origin, args)
    if hint is cabc.Callable or hint is typing.Callable:
        return None if callable(value) else f"expected a callable, got {_short(value)}"
    if inspect.isclass(hint):
        try:
            if isinstance(value, hint):
                return None
        except TypeError:
            return None
        if isinstance(value, (str, int, float, bool, list, dict)) or value is None:
            return f"expected {type_name(hint)}, got {_short(value)}"
        return None  # an object built from a promise: trust the component
    return None


def _check_generic(value: Any, hint: Any, origin: Any, args: tuple[Any, ...]) -> str | None:
    if origin in (list, cabc.Sequence, cabc.MutableSequence, set, frozenset, cabc.Iterable):
        if not isinstance(value, (list, tuple)):
            return f"expected {type_name(hint)}, got {_short(value)}"
        item = args[0] if args else Any
        for i, v in enumerate(value):
            problem = check_type(v, item)
            if problem:
                return f"[{i}]: {problem}"
        return None
    if origin is tuple:
        if not isinstance(value, (list, tuple)):
            return f"expected {type_name(hint)}, got {_short(value)}"
        if len(args) == 2 and args[1] is Ellipsis:
            items = [args[0]] * len(value)
        elif args:
            if len(args) != len(value):
                return f"expected {len(args)} items ({type_name(hint)}), got {len(value)}"
            items = list(args)
        else:
            items = [Any] * len(value)
        for i, (v, h) in enumerate(zip(value, items, strict=True)):
            problem = check_type(v, h)
            if problem:
                return f"[{i}]: {problem}"
        return None
    if origin in (dict, cabc.Mapping, cabc.MutableMapping):
        if not isinstance(value, dict):
            return f"expected {type_name(hint)}, got {_short(value)}"
        vt = args[1] if len(args) == 2 else Any
        for k, v in value.items():
            problem = check_type(v, vt)
            if problem:
                return f"[{k!r}]: {problem}"
        return None
    if origin is cabc.Callable:
        return None if callable(value) else f"expected a callable, got {_short(value)}"
    if origin is type:
        return None if inspect.isclass(value) else f"expected a class, got {_short(value)}"
    return None
