"""Run filters: ``--where "val_accuracy>0.95"``, ``--where optimizer.learning_rate=0.01``.

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
"""

from __future__ import annotations

import json
import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tensorweave_store.errors import StoreError

__all__ = ["Condition", "parse_condition", "flatten"]

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
