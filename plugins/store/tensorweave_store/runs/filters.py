"""Run filters: ``--where "val_accuracy>0.95"``, ``--where optimizer.learning_rate=0.01``,
``--built-with "tensorweave-layers<0.2"``.

A condition is ``KEY OP VALUE`` with ``OP`` one of ``>= <= != == = > <``. ``KEY`` is a
final figure of the run (``val_accuracy``, ``loss``…), a field (``status``, ``name``,
``id``, ``kind``) or a dotted config path (``optimizer.learning_rate``, ``train.epochs``).

>>> c = parse_condition("val_accuracy>0.95")
>>> c.key, c.op, c.value
('val_accuracy', '>', 0.95)
>>> c.holds({"val_accuracy": 0.97}), c.holds({"val_accuracy": 0.9}), c.holds({})
(True, False, False)
>>> parse_condition("optimizer.@optimizers=SGD.v1").holds({"optimizer.@optimizers": "SGD.v1"})
True

A ``--built-with`` requirement (``packaging``'s ``NAME SPECIFIER``) holds for a run when a
component of its config came from that distribution at a version in the range (the
providers recorded per run), or, for ``tensorweave``, ``tensorflow`` and ``python``, when
the run's recorded version is in it:

>>> b = parse_built_with("tensorweave_layers<0.2")
>>> providers = {"model.nodes.h1": {"component": "layers:FC.v1",
...                                 "provider": "tensorweave-layers 0.1.0"}}
>>> b.matched(providers, {"tensorweave": "0.1.0"}), b.holds({}, {})
(['tensorweave-layers 0.1.0'], False)
"""

from __future__ import annotations

import json
import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from tensorweave_store.errors import StoreError

__all__ = [
    "Condition",
    "parse_condition",
    "flatten",
    "BuiltWith",
    "BadBuiltWithError",
    "parse_built_with",
]

_OPS: dict[str, Callable[[Any, Any], bool]] = {
    ">=": operator.ge,
    "<=": operator.le,
    "!=": operator.ne,
    "==": operator.eq,
    ">": operator.gt,
    "<": operator.lt,
    "=": operator.eq,
}
_PATTERN = re.compile(r"^\s*([^<>=!\s]+)\s*(>=|<=|!=|==|>|<|=)\s*(.*?)\s*$")


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text.strip("'\"")


@dataclass(frozen=True)
class Condition:
    """One ``KEY OP VALUE`` test on a flat mapping of a run's values."""

    key: str
    op: str
    value: Any

    def holds(self, values: Mapping[str, Any]) -> bool:
        if self.key not in values:
            return False
        got = values[self.key]
        try:
            return bool(_OPS[self.op](got, self.value))
        except TypeError:
            return bool(_OPS[self.op](str(got), str(self.value)))

    def __str__(self) -> str:
        return f"{self.key}{self.op}{self.value}"


def parse_condition(text: str) -> Condition:
    """Parse ``KEY OP VALUE`` (a ``StoreError`` naming the form when it is not one)."""
    m = _PATTERN.match(text)
    if not m or not m.group(3):
        raise StoreError(
            f"cannot read the filter {text!r}. Fix: write KEY OP VALUE, e.g. "
            '"val_accuracy>0.95" or optimizer.learning_rate=0.01 (OP: > >= < <= = !=).'
        )
    return Condition(m.group(1), m.group(2), _value(m.group(3)))


def flatten(tree: Any, prefix: str = "") -> dict[str, Any]:
    """A nested config as ``{"a.b.c": value}`` (lists kept whole).

    >>> flatten({"a": {"b": 1, "c": [1, 2]}, "d": "x"})
    {'a.b': 1, 'a.c': [1, 2], 'd': 'x'}
    """
    out: dict[str, Any] = {}
    if isinstance(tree, Mapping):
        for key, value in tree.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            if isinstance(value, Mapping):
                out.update(flatten(value, path))
            else:
                out[path] = value
    return out


class BadBuiltWithError(StoreError, ValueError):
    """A ``--built-with`` requirement that is not ``NAME SPECIFIER`` (a usage error)."""

    exit_code = 2


# recorded for every run in its ``@versions`` (what every run is built with)
_ALWAYS = ("tensorweave", "tensorflow", "python")


@dataclass(frozen=True)
class BuiltWith:
    """``--built-with NAME SPECIFIER``: runs built with versions of a distribution in a
    range (``packaging.specifiers``; pre-releases and dev builds count as their version)."""

    requirement: Requirement

    @property
    def name(self) -> str:
        return canonicalize_name(self.requirement.name)

    def _contains(self, version: str) -> bool:
        try:
            return self.requirement.specifier.contains(Version(version), prereleases=True)
        except InvalidVersion:
            return False

    def matched(self, providers: Mapping[str, Any], versions: Mapping[str, Any]) -> list[str]:
        """The recorded ``"dist version"`` of this distribution in range, sorted (``[]``:
        the run was not built with it in range). ``providers``: ``{path: {"provider":
        "dist version"}}`` as a run records them; ``versions``: its ``@versions``."""
        found = set()
        for entry in providers.values():
            dist, _, version = str((entry or {}).get("provider", "")).partition(" ")
            if canonicalize_name(dist) == self.name and self._contains(version):
                found.add(f"{dist} {version}")
        for key in _ALWAYS:
            recorded = versions.get(key)
            if canonicalize_name(key) == self.name and recorded and self._contains(str(recorded)):
                found.add(f"{key} {recorded}")
        return sorted(found)

    def holds(self, providers: Mapping[str, Any], versions: Mapping[str, Any]) -> bool:
        return bool(self.matched(providers, versions))

    def __str__(self) -> str:
        return str(self.requirement)


def parse_built_with(text: str) -> BuiltWith:
    """Parse ``NAME SPECIFIER`` (``"tensorweave-layers<0.2"``, ``"tensorweave-data==0.1.*"``,
    a bare name for any version); a ``BadBuiltWithError`` (exit 2) naming the form."""
    try:
        requirement = Requirement(text)
    except InvalidRequirement as err:
        raise BadBuiltWithError(
            f"cannot read --built-with {text!r} ({str(err).splitlines()[0]}). Fix: a distribution and a version "
            'range, e.g. --built-with "tensorweave-layers<0.2" or "tensorweave-data>=0.1,<0.3"'
            " (PEP 440 specifiers: < <= > >= == != ~=)."
        ) from err
    if requirement.extras or requirement.marker or requirement.url:
        raise BadBuiltWithError(
            f"--built-with {text!r}: only a distribution and a version range are read "
            '(no [extras], URL or ; marker). Fix: e.g. --built-with "tensorweave-layers<0.2".'
        )
    return BuiltWith(requirement)
