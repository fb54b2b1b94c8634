"""Promises: tables with one ``"@kind"`` key that name a registered component.

``{"@layers": "Linear.v1", "n_units": 4}`` promises ``tw.layers["Linear.v1"](..., n_units=4)``.
This module tells promises apart and looks their components up (through the registries
only); ``resolve`` validates and builds them, ``graphs`` wires them into layer graphs.

>>> promise_kind({"@layers": "Linear.v1", "n_units": 4})
('layers', 'Linear.v1')
>>> promise_params({"@layers": "Linear.v1", "n_units": 4, "@provider": "my-pack 1.0"})
{'n_units': 4}
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

from tensorweave.errors import RegistryError, UnknownComponentError
from tensorweave.registries import hint_for, kinds, registry
from tensorweave.registries.counterparts import suggestion

__all__ = ["META_KEYS", "is_promise", "promise_kind", "promise_params", "lookup"]

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


def lookup(
    kind: str,
    name: Any,
    path: str,
    errors: list[tuple[str, str]],
    *,
    recorded: str | None = None,
    causes: list[BaseException] | None = None,
) -> Any:
    """The component ``name`` of ``kind``, or ``None`` with the problem added to ``errors``.

    ``recorded`` is the ``"@provider"`` a filled config saved beside the name; when the
    component (or its whole kind) is missing, the message says which distribution (and
    version) to install. A component that failed to load adds its error to ``causes``.
    """
    if not isinstance(name, str) or not name:
        errors.append((path, f"'@{kind}' must name a registered component, got {name!r}"))
        return None
    known = set(kinds())
    if kind not in known:
        close = difflib.get_close_matches(kind, sorted(known), n=1)
        provided = hint_for(kind, name, recorded=recorded)
        hint = f" Did you mean '@{close[0]}'?" if close else ""
        hint += f" {provided}." if provided else ""
        errors.append((path, f"unknown component kind '@{kind}'.{hint} Kinds: {sorted(known)}"))
        return None
    reg = registry(kind)
    try:
        return reg.get(name)
    except UnknownComponentError:
        bare = name.split(":", 1)[-1]
        close = difflib.get_close_matches(bare, reg.names(), n=3, cutoff=0.6)
        msg = f"unknown {kind} component {name!r}"
        elsewhere = suggestion(kind, bare, reg.__contains__)  # "Dense is keras.layers.Dense…"
        if elsewhere:
            msg += f"; {elsewhere}"
        provided = hint_for(kind, name, recorded=recorded)
        if provided:
            msg += f"; {provided}"
        if close:
            msg += f"; close matches: {', '.join(close)}"
        if not provided and not close and not elsewhere:
            msg += "; `tensorweave plugins` lists what is installed"
        errors.append((path, msg))
    except RegistryError as err:
        errors.append((path, f"{kind} component {name!r} cannot be used: {err}"))
        if causes is not None:
            causes.append(err)
    return None
