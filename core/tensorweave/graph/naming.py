"""Automatic, readable, unique layer names, counted per scope rather than per process.

A ``NameScope`` hands out ``linear``, ``linear_1``, ``linear_2``…; ``name_scope("encoder")``
opens a nested scope whose names read ``encoder/linear``. The active scope lives in a
``contextvars.ContextVar``, so threads and async tasks do not share counters, and
``reset_names()`` gives tests a clean slate.

>>> from tensorweave.graph.naming import name_scope, unique_name, reset_names
>>> reset_names()
>>> unique_name("linear"), unique_name("linear")
('linear', 'linear_1')
>>> with name_scope("encoder"):
...     unique_name("linear")
'encoder/linear'
"""

from __future__ import annotations

import contextlib
import contextvars
import re
import threading
from collections.abc import Iterator

__all__ = [
    "NameScope",
    "name_scope",
    "unique_name",
    "reset_names",
    "current_scope",
    "module_name",
    "snake_case",
]

_INVALID = re.compile(r"[^A-Za-z0-9_./-]")


class NameScope:
    """A namespace that counts how often each base name was handed out."""

    def __init__(self, prefix: str = "") -> None:
        self.prefix = prefix
        self._counts: dict[str, int] = {}
        self._used: set[str] = set()  # so "dense_1" asked for by name is not handed out twice
        self._lock = threading.Lock()  # threads share the root scope: count atomically

    def unique(self, base: str) -> str:
        """Return ``base`` the first time, then ``base_1``, ``base_2``… within this scope."""
        base = _INVALID.sub("_", base) or "layer"
        with self._lock:
            n = self._counts.get(base, 0)
            leaf = base if n == 0 else f"{base}_{n}"
            while leaf in self._used:
                n += 1
                leaf = f"{base}_{n}"
            self._counts[base] = n + 1
            self._used.add(leaf)
        return f"{self.prefix}/{leaf}" if self.prefix else leaf

    def child(self, name: str) -> NameScope:
        """A nested scope; its own name is made unique within this one."""
        return NameScope(self.unique(name))


_root = NameScope()
_current: contextvars.ContextVar[NameScope] = contextvars.ContextVar("tensorweave_name_scope")


def current_scope() -> NameScope:
    """The scope new layers are named in."""
    return _current.get(_root)


def unique_name(base: str) -> str:
    """A unique name for a new node in the current scope."""
    return current_scope().unique(base)


@contextlib.contextmanager
def name_scope(name: str) -> Iterator[NameScope]:
    """Name the layers built inside ``with`` as ``name/...`` (unique among siblings)."""
    scope = current_scope().child(name)
    token = _current.set(scope)
    try:
        yield scope
    finally:
        _current.reset(token)


def reset_names() -> None:
    """Forget every name handed out so far in the root scope (for tests and notebooks)."""
    global _root
    _root = NameScope()
    _current.set(_root)


def snake_case(name: str) -> str:
    """The base of a layer's automatic name, from its class name.

    >>> snake_case("Linear"), snake_case("LSTMCell"), snake_case("HTTPServer2")
    ('linear', 'lstm_cell', 'http_server2')
    """
    out = []
    for i, ch in enumerate(name):
        if (
            ch.isupper()
            and i
            and (not name[i - 1].isupper() or (i + 1 < len(name) and name[i + 1].islower()))
        ):
            out.append("_")
        out.append(ch.lower())
    return "".join(out)


def module_name(name: str) -> str:
    """A valid ``tf.Module`` name (a Python identifier) derived from a layer name.

    >>> module_name("encoder/linear_1"), module_name("2d-conv")
    ('encoder_linear_1', 'l_2d_conv')
    """
    ident = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    return ident if ident and not ident[0].isdigit() else f"l_{ident}"
