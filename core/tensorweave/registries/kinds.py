"""Component kinds: declared by the packs that introduce them, one registry each.

A kind is a family of components found by name: ``layers``, ``cells``, ``losses``,
``datasets``… The core fixes none of them. A pack that introduces a kind declares it in
the ``tensorweave.kinds`` entry-point group, pointing at a ``Kind`` that says what the
kind is and how to check a component of it::

    # pyproject.toml of a pack that introduces "widgets"
    [project.entry-points."tensorweave.kinds"]
    widgets = "my_pack.kinds:widgets"

    # my_pack/kinds.py
    widgets = tw.Kind("widgets", doc="things that whirr", check=my_check)

Components of a kind live in the group ``tensorweave.<kind>``. ``registry(kind)`` returns
the one registry of a kind; ``kinds()`` lists every kind installed metadata knows of
(declared, or holding components) without importing any plugin. A declaration's module is
imported only when a component of its kind is first loaded, so that its check can run;
several packs may declare the same kind, and every check applies. A declaration that fails
to load is recorded against its distribution (``tw.plugins.failures()``) and skipped.

>>> import tensorweave as tw
>>> widgets = tw.registry("doc_widgets")
>>> tw.registry("doc_widgets") is widgets, widgets.group
(True, 'tensorweave.doc_widgets')
>>> tw.declare_kind(tw.Kind("doc_widgets", check=lambda obj: None if callable(obj) else "not callable"))
>>> widgets.register("Spin.v1", 42)
Traceback (most recent call last):
...
tensorweave.errors.InvalidComponentError: cannot register 'Spin.v1' as a doc_widgets component: not callable (check of local)
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tensorweave.errors import PluginLoadError
from tensorweave.registries.checks import Validator
from tensorweave.registries.discovery import KINDS_GROUP, catalog
from tensorweave.registries.entries import LOCAL
from tensorweave.registries.registry import Registry

__all__ = [
    "Kind",
    "registry",
    "kinds",
    "declare_kind",
    "declared_kinds",
    "kind_doc",
    "kind_failures",
    "is_step_kind",
]


@dataclass(frozen=True)
class Kind:
    """A component kind, as the pack that introduces it declares it.

    Args:
        name: the kind (``"cells"``); its components live in the group
            ``tensorweave.<name>``.
        doc: one line on what components of this kind are.
        check: returns a problem (a string) when an object is not a valid component of
            this kind, ``None`` when it is. Runs when a component loads or registers.
        step: components are steps ``fn(value, **params)``: a block's first parameter is
            fed when it runs, and the block is kept as data (validated, not called).

    >>> Kind("cells", doc="recurrent cells").name
    'cells'
    """

    name: str
    doc: str = ""
    check: Validator | None = None
    step: bool = False

    @classmethod
    def of_callables(
        cls, name: str, *, doc: str = "", expected: str = "", step: bool = False
    ) -> Kind:
        """A kind whose components are callables (classes or functions); ``expected`` says
        what a component must be, for the message on anything else; ``step`` as in ``Kind``.

        >>> Kind.of_callables("widgets", expected="a widget must be a class").check(3)
        'a widget must be a class, got int 3'
        """
        what = expected or f"a {name} component must be a class or a function"

        def check(obj: Any) -> str | None:
            return None if callable(obj) else f"{what}, got {type(obj).__name__} {obj!r}"

        return cls(name, doc=doc, check=check, step=step)


_lock = threading.RLock()
_registries: dict[str, Registry[Any]] = {}
_local_kinds: dict[str, list[Kind]] = {}
_loaded: dict[str, tuple[int, list[tuple[str, Kind]]]] = {}
_failures: dict[tuple[str, str], PluginLoadError] = {}


def _declarations(kind: str) -> list[tuple[str, Kind]]:
    """``(provider label, Kind)`` of every installed and in-process declaration of ``kind``."""
    generation = catalog.generation
    cached = _loaded.get(kind)
    if cached is None or cached[0] != generation:
        found: list[tuple[str, Kind]] = []
        with _lock:  # failures of an earlier scan are judged again
            for key in [k for k in _failures if k[0] == kind]:
                del _failures[key]
        for ref in catalog.loadable(KINDS_GROUP):
            if ref.name != kind:
                continue
            declared = _load_declaration(ref.name, ref.distribution, ref.version, ref.load)
            if declared is not None:
                found.append((f"{ref.distribution} {ref.version}", declared))
        with _lock:
            _loaded[kind] = (generation, found)
        cached = _loaded[kind]
    return cached[1] + [(LOCAL, k) for k in _local_kinds.get(kind, [])]


def _load_declaration(
    kind: str, distribution: str, version: str, load: Callable[[], Any]
) -> Kind | None:
    try:
        obj = load()
    except KeyboardInterrupt:
        raise
    except BaseException as err:  # contained: a broken declaration drops only its check
        _record(kind, distribution, version, f"failed to load: {type(err).__name__}: {err}", err)
        return None
    if not isinstance(obj, Kind) or obj.name != kind:
        what = f"a Kind named {obj.name!r}" if isinstance(obj, Kind) else type(obj).__name__
        _record(kind, distribution, version, f"points at {what}, not tw.Kind({kind!r}, ...)", None)
        return None
    return obj


def _record(
    kind: str, distribution: str, version: str, problem: str, cause: BaseException | None
) -> None:
    error = PluginLoadError(
        f"the declaration of kind {kind!r} by {distribution} {version} {problem}. Components "
        f"of {kind!r} load without its check. Fix: reinstall or upgrade {distribution}, or "
        f"block it with TENSORWEAVE_BLOCK={distribution}.",
        entry_point=kind,
        distribution=distribution,
        version=version,
        cause=cause,
    )
    error.__cause__ = cause
    with _lock:
        _failures[(kind, distribution)] = error
    warnings.warn(str(error), RuntimeWarning, stacklevel=4)


def _checks_of(kind: str) -> Callable[[], list[tuple[str, Validator]]]:
    def checks() -> list[tuple[str, Validator]]:
        return [(label, k.check) for label, k in _declarations(kind) if k.check is not None]

    return checks


def registry(kind: str) -> Registry[Any]:
    """The one registry of ``kind`` (made on first use; any name is a valid kind).

    >>> import tensorweave as tw
    >>> tw.registry("doc_gadgets").kind
    'doc_gadgets'
    """
    found = _registries.get(kind)
    if found is None:
        with _lock:
            found = _registries.get(kind)
            if found is None:
                found = _registries[kind] = Registry(
                    kind, checks=_checks_of(kind), describe=lambda: kind_doc(kind)
                )
    return found


def kinds() -> dict[str, Registry[Any]]:
    """Every kind installed metadata or this process knows of, with its registry.

    Reads metadata only: no plugin is imported.
    """
    names = catalog.kind_names() | set(_registries) | set(_local_kinds)
    return {name: registry(name) for name in sorted(names)}


def declare_kind(kind: Kind) -> None:
    """Declare ``kind`` in this process (packs declare theirs with an entry point).

    Its check then applies to every component of the kind loaded or registered from now on.
    """
    with _lock:
        _local_kinds.setdefault(kind.name, []).append(kind)


def declared_kinds() -> set[str]:
    """The kinds an installed (not blocked) pack or this process declares (metadata only)."""
    installed = {
        ref.name
        for ref in catalog.entry_points(KINDS_GROUP)
        if not catalog.is_blocked(ref.distribution)
    }
    return installed | set(_local_kinds)


def kind_doc(kind: str) -> str:
    """The first one-line description the declarations of ``kind`` give (loads them)."""
    return next((k.doc for _, k in _declarations(kind) if k.doc), "")


def is_step_kind(kind: str) -> bool:
    """Whether a declaration of ``kind`` says its components are steps (``Kind.step``).

    Loads the declarations of ``kind`` only (the packs' kinds modules, not their
    components).

    >>> import tensorweave as tw
    >>> tw.declare_kind(tw.Kind("doc_steps", step=True))
    >>> is_step_kind("doc_steps"), is_step_kind("doc_gadgets")
    (True, False)
    """
    return any(k.step for _, k in _declarations(kind))


def kind_failures() -> list[PluginLoadError]:
    """Kind declarations that could not be loaded, each with its distribution."""
    with _lock:
        return list(_failures.values())
