"""Moves: how a pack declares that a component's name moved, and where a name moved to.

A component never changes what it computes under the same name: a change is a new version
(``Foo.v2``). A pack tells where an old name went, in its registry, one of two ways:

- **the old name is gone**: its entry point points at ``tw.alias("Foo.v2", reason=...)``;
  looking the old name up warns (the registry's ``DeprecationWarning``) and gives ``Foo.v2``;
- **the old version stays** (old configs keep computing what they computed): the registered
  class or function declares its successor, with ``@supersede("Foo.v2", reason=...)`` or the
  attributes it sets, ``superseded_by = "Foo.v2"`` and ``superseded_reason = "..."``.

``moved_to(kind, name)`` reads both declarations (looking the name up through the one
resolver, ``tw.resolve``), follows a chain of moves to its end (``Foo.v1`` -> ``Foo.v2`` ->
``Foo.v3``), keeps a qualified name's ``dist:`` and refuses a cycle. Only declared moves
count: a newer version that does not declare it replaces the old one is no move.
``tensorweave upgrade CONFIG`` rewrites a config's names with it.

>>> import tensorweave as tw
>>> with tw.registry("doc_moves").scoped() as reg:
...     @reg.register("scale.v2")
...     def scale(x, factor=2):
...         return factor * x
...     @reg.register("scale.v1")
...     @supersede("scale.v2", reason="v2 takes the factor")
...     def scale_v1(x):
...         return 2 * x
...     reg.deprecate("double.v1", tw.alias("scale.v1"))
...     moved_to("doc_moves", "double.v1"), moved_to("doc_moves", "scale.v2")
(Move(kind='doc_moves', name='double.v1', new='scale.v2', reason='v2 takes the factor', declared_by='local'), None)
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from tensorweave.errors import RegistryError
from tensorweave.registries.entries import LOCAL, split_qualified
from tensorweave.registries.kinds import registry
from tensorweave.registries.resolve import resolve

__all__ = [
    "SUPERSEDED_BY",
    "SUPERSEDED_REASON",
    "Move",
    "MoveCycleError",
    "moved_to",
    "supersede",
]

SUPERSEDED_BY = "superseded_by"  # the attribute naming a kept component's successor
SUPERSEDED_REASON = "superseded_reason"  # and, optionally, why
MAX_HOPS = 20  # a chain of moves longer than this is a cycle

C = TypeVar("C")


@dataclass(frozen=True)
class Move:
    """``kind`` component ``name`` moved to ``new`` (the end of its chain of moves), for
    ``reason``, as declared by ``declared_by`` (``"my-pack 0.2"``, ``"local"``)."""

    kind: str
    name: str
    new: str
    reason: str = ""
    declared_by: str = ""

    def describe(self) -> str:
        """``"activations relu.v1 -> relu.v2 (declared by my-pack 0.2): why"``."""
        by = f" (declared by {self.declared_by})" if self.declared_by else ""
        why = f": {self.reason}" if self.reason else ""
        return f"{self.kind} {self.name} -> {self.new}{by}{why}"


class MoveCycleError(RegistryError):
    """Declared moves that lead back to a name already passed."""


def supersede(new: str, *, reason: str = "") -> Callable[[C], C]:
    """Declare that a registered class or function is superseded by ``new`` (kept, so old
    configs still compute what they computed; ``tensorweave upgrade`` rewrites them).

    >>> @supersede("Foo.v2", reason="v2 fixes the bias init")
    ... def foo_v1(x):
    ...     return x
    >>> foo_v1.superseded_by, foo_v1.superseded_reason
    ('Foo.v2', 'v2 fixes the bias init')
    """

    def declare(obj: C) -> C:
        setattr(obj, SUPERSEDED_BY, new)
        setattr(obj, SUPERSEDED_REASON, reason)
        return obj

    return declare


def _declared(obj: Any, key: str) -> str:
    """``key`` as declared on ``obj`` itself (a subclass does not inherit a move)."""
    value = getattr(obj, "__dict__", {}).get(key, "")
    return value if isinstance(value, str) else ""


def _step(kind: str, name: str) -> Move | None:
    """The one move ``kind`` component ``name`` declares, or ``None``."""
    with warnings.catch_warnings():
        # an alias warns when used; here it is what is being read, and reported as a move
        warnings.simplefilter("ignore", DeprecationWarning)
        obj = resolve(kind, name)  # an unknown name raises, with the closest matches
    reg = registry(kind)
    if name not in reg:  # an unversioned name: the latest version, nothing declared
        return None
    info = reg.info(name)
    label = LOCAL if info.distribution == LOCAL else f"{info.distribution} {info.version}"
    provider = name.split(":", 1)[0] if ":" in name else None  # as written
    bare = split_qualified(name)[1]
    if info.alias_of:
        reason = "" if info.target == f"deprecated alias of {info.alias_of}" else info.target
        new = info.alias_of
    else:
        new = _declared(obj, SUPERSEDED_BY)
        reason = _declared(obj, SUPERSEDED_REASON)
        if not new or new == bare:
            return None
    if provider is not None and ":" not in new:
        new = f"{provider}:{new}"
    return Move(kind, name, new, reason, label)


def moved_to(kind: str, name: str) -> Move | None:
    """Where ``kind`` component ``name`` moved, following its chain of moves to the end,
    or ``None`` when no installed pack declares it moved. An unknown name raises
    ``UnknownComponentError`` (with the registry's closest matches); a cycle raises
    ``MoveCycleError``."""
    seen, current, reasons, by = [name], name, [], []
    for _ in range(MAX_HOPS):
        step = _step(kind, current)
        if step is None:
            break
        current = step.new
        if current in seen or len(seen) == MAX_HOPS:
            raise MoveCycleError(
                f"the {kind} moves declared for {name!r} form a cycle: "
                f"{' -> '.join([*seen, current])}. Fix: report it to {step.declared_by} (its "
                "tw.alias entry points or superseded_by point back)."
            )
        seen.append(current)
        reasons += [step.reason] if step.reason else []
        by += [step.declared_by] if step.declared_by not in by else []
    if current == name:
        return None
    return Move(kind, name, current, "; ".join(reasons), ", ".join(by))
