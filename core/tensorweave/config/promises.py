"""Promises: tables with one ``"@kind"`` key that name a registered component.

``{"@layers": "Linear.v1", "n_units": 4}`` promises ``tw.layers["Linear.v1"](..., n_units=4)``.
This module tells promises apart; ``resolver`` looks their components up (the one place a
registered name is looked up), ``resolve`` validates and builds them, ``graphs`` wires them
into layer graphs.

>>> promise_kind({"@layers": "Linear.v1", "n_units": 4})
('layers', 'Linear.v1')
>>> promise_params({"@layers": "Linear.v1", "n_units": 4, "@provider": "my-pack 1.0"})
{'n_units': 4}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["META_KEYS", "is_promise", "promise_kind", "promise_params"]

META_KEYS = frozenset({"@provider", "@versions", "@note"})


def promise_kind(node: Any) -> tuple[str, Any] | None:
    """``("layers", "Linear.v1")`` for a promise table, else ``None``."""
    if not isinstance(node, Mapping):
        return None
    keys = [k for k in node if isinstance(k, str) and k.startswith("@") and k not in META_KEYS]
    if len(keys) != 1:
        return None
    return keys[0][1:], node[keys[0]]


def is_promise(node: Any) -> bool:
    """Whether ``node`` is a promise table (one ``"@kind"`` key)."""
    return promise_kind(node) is not None


def promise_params(node: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters of a promise: every key but ``@`` keys."""
    return {k: v for k, v in node.items() if not (isinstance(k, str) and k.startswith("@"))}
