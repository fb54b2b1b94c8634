"""``Registry``: components of one kind by versioned name, found lazily through entry points.

Each kind (layers, cells, losses…) has one registry reading the entry-point group
``tensorweave.<kind>``. Listing names reads metadata only; the first lookup of a name
imports only that component's module, checks it is a valid component of its kind, and
caches it. Two distributions offering the same name never shadow each other: the bare
name raises ``ComponentConflictError`` naming both, and ``"dist-name:Name.v1"`` picks one.
A plugin that fails to import is recorded and reported only when its component is asked
for; everything else keeps working (the loading itself is ``loading.load_entry``).

>>> import tensorweave as tw
>>> reg = tw.Registry("demo_things")
>>> @reg.register("Double.v1")
... def double(x):
...     return 2 * x
>>> reg["Double.v1"](21), reg.get("Double")(1), "Double.v1" in reg
(42, 2, True)
>>> reg["Dubble.v1"]
Traceback (most recent call last):
...
tensorweave.errors.UnknownComponentError: no demo_things component 'Dubble.v1' (entry-point group 'tensorweave.demo_things').
  Close matches: Double.v1 (local)
  Installed providers of demo_things: none
  Fix: check the spelling, or pip install the distribution that provides it; `tensorweave plugins` lists what is installed.
"""

from __future__ import annotations

import contextlib
import threading
import warnings
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

from tensorweave.errors import (
    BlockedPluginError,
    ComponentConflictError,
    InvalidComponentError,
    PluginLoadError,
    RegistryError,
    UnknownComponentError,
)
from tensorweave.registries.checks import Validator, run_checks
from tensorweave.registries.counterparts import suggestion
from tensorweave.registries.discovery import GROUP_PREFIX, catalog
from tensorweave.registries.entries import (
    LOCAL,
    UNSET,
    Alias,
    ComponentInfo,
    Entry,
    alias,
    describe,
    split_qualified,
    split_version,
    unknown_component,
)
from tensorweave.registries.loading import compatible, load_entry

__all__ = ["Registry", "ComponentInfo", "Alias", "alias", "LOCAL", "split_version"]

T = TypeVar("T")


# The checks of a kind's declarations (loaded lazily), each ``(label, check)``.
Checks = Callable[[], "list[tuple[str, Validator]]"]


class Registry(Generic[T]):
    """The components of one kind, by name.

    Args:
        kind: the kind (``"layers"``); the entry-point group is ``tensorweave.<kind>``.
        validate: returns a problem (a string) when an object is not a valid component of
            this kind, ``None`` when it is; checked when a component loads or registers.
        doc: one line on what this kind is, for ``tensorweave plugins``.
        checks: more checks, found when first needed (``tw.registry`` passes the checks of
            the packs that declare this kind).
        describe: the description when ``doc`` is empty, found when first asked
            (``tw.registry`` passes the ``doc`` of the packs' ``tw.Kind`` declarations).
    """

    def __init__(
        self,
        kind: str,
        *,
        validate: Validator | None = None,
        doc: str = "",
        checks: Checks | None = None,
        describe: Callable[[], str] | None = None,
    ) -> None:
        self.kind = kind
        self.group = GROUP_PREFIX + kind
        self._doc = doc
        self._describe = describe
        self._validate = validate
        self._checks = checks
        self._lock = threading.RLock()
        self._local: dict[str, Entry] = {}
        self._plugin_entries: dict[tuple[str, str], Entry] = {}  # kept across re-indexing
        self._index: dict[str, list[Entry]] = {}
        self._seen_generation = -1

    @property
    def doc(self) -> str:
        """One line on what this kind is (the ``doc=`` of its ``tw.Kind`` declaration)."""
        return self._doc or (self._describe() if self._describe is not None else "")

    # -- listing (imports nothing) --------------------------------------------------------
    def names(self) -> list[str]:
        """Every available name, sorted (blocked distributions left out)."""
        blocked = catalog.blocked()  # read once, not once per name
        return sorted(n for n, entries in self._entries().items() if self._usable(entries, blocked))

    def infos(self) -> list[ComponentInfo]:
        """One row per (name, provider), with its status, for listings and tooling."""
        return [self._info(e) for _, es in sorted(self._entries().items()) for e in es]

    def providers(self, name: str) -> list[str]:
        """The distributions offering ``name`` (``"local"`` for in-process registrations)."""
        return [e.provider for e in self._entries().get(name, [])]

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        return self._usable(self._offers(name)[2], catalog.blocked())

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, group={self.group!r})"

    # -- lookup ---------------------------------------------------------------------------
    def __getitem__(self, name: str) -> T:
        """The component registered exactly as ``name`` (or ``"dist:name"``), loaded."""
        provider, bare, entries = self._offers(name)
        if provider is not None and not entries:
            raise self._unknown(name, bare, provider)
        usable = [e for e in entries if not catalog.is_blocked(e.provider)]
        if not usable:
            if entries:  # a qualified name does not get around a block either
                e = entries[0]
                raise BlockedPluginError(
                    f"{self.kind} component {bare!r} comes from {e.label()}, which is blocked "
                    f"(TENSORWEAVE_BLOCK or tw.plugins.block). Fix: unblock it, or use "
                    "another provider.",
                    entry_point=bare,
                    distribution=e.provider,
                    version=e.version,
                )
            raise self._unknown(name, bare, None)
        overrides = [e for e in usable if e.override]
        if overrides:
            return self._load(overrides[0])
        if len(usable) > 1:
            labels = ", ".join(e.label() for e in usable)
            options = " or ".join(f"{self.kind}[{e.provider + ':' + bare!r}]" for e in usable)
            raise ComponentConflictError(
                f"{self.kind} component {bare!r} is offered by several distributions: {labels}. "
                f"Neither is picked silently.\n  Fix: ask for one by qualified name, e.g. "
                f"{options}; or uninstall/block one (TENSORWEAVE_BLOCK=dist-name)."
            )
        return self._load(usable[0])

    def get(self, name: str, default: Any = UNSET) -> T:
        """Like ``[name]``, but an unversioned name picks the latest version (``Linear`` ->
        ``Linear.v2``), and ``default`` is returned instead of raising for unknown names."""
        try:
            provider, bare = split_qualified(name)
            if split_version(bare)[1] is None and bare not in self._entries():
                latest = self.latest(bare, provider=provider)
                if latest is not None:
                    bare = latest
            return self[f"{provider}:{bare}" if provider else bare]
        except UnknownComponentError:
            if default is UNSET:
                raise
            result: T = default
            return result

    def latest(self, base: str, *, provider: str | None = None) -> str | None:
        """The highest-versioned name ``base.vN`` available (from ``provider``, when given),
        or ``None``."""
        if provider is not None:
            provider = split_qualified(f"{provider}:")[0]
        versions = [
            (v, n)
            for n in self.names()
            for b, v in [split_version(n)]
            if b == base and v is not None and (provider is None or provider in self.providers(n))
        ]
        return max(versions)[1] if versions else None

    def info(self, name: str) -> ComponentInfo:
        """What is known of ``name`` (its first provider), without loading it."""
        provider, bare, entries = self._offers(name)
        if not entries:
            raise self._unknown(name, bare, provider)
        return self._info(entries[0])

    def load_all(self) -> dict[str, T]:
        """Load every component, isolating failures (see ``failures()``); by qualified name."""
        out: dict[str, T] = {}
        for name, entries in self._entries().items():
            for e in entries:
                if catalog.is_blocked(e.provider):
                    continue
                with contextlib.suppress(PluginLoadError):
                    out[f"{e.provider}:{name}"] = self._load(e)
        return out

    def failures(self) -> list[PluginLoadError]:
        """Components that failed to load so far, each with its cause chained."""
        return [e.error for es in self._entries().values() for e in es if e.error is not None]

    # -- registration ---------------------------------------------------------------------
    def register(self, name: str, obj: Any = UNSET, *, override: bool = False) -> Any:
        """Register ``obj`` as ``name`` in this process; usable as a decorator.

        A name already offered (by an installed plugin or an earlier registration) is
        refused unless ``override=True``, which makes this registration win lookups of the
        bare name.

        >>> import tensorweave as tw
        >>> with tw.activations.scoped():
        ...     tw.activations.register("my_relu.v1", lambda x: x)
        ...     "my_relu.v1" in tw.activations
        <function <lambda> at ...>
        True
        """
        if obj is UNSET:

            def decorator(target: Any) -> Any:
                self.register(name, target, override=override)
                return target

            return decorator
        if ":" in name:
            raise RegistryError(f"register a bare name, not {name!r} (':' marks a provider).")
        problem = self._problem(name, obj)
        if problem:
            raise InvalidComponentError(
                f"cannot register {name!r} as a {self.kind} component: {problem}",
                entry_point=name,
                distribution=LOCAL,
            )
        with self._lock:
            existing = self._entries().get(name, [])
            if existing and not override:
                labels = ", ".join(e.label() for e in existing)
                raise ComponentConflictError(
                    f"{self.kind} component {name!r} is already offered by {labels}.\n  Fix: "
                    f"pick a new name (e.g. {split_version(name)[0]}.v"
                    f"{(split_version(name)[1] or 0) + 1}), or pass override=True."
                )
            entry = Entry(name, LOCAL, "", obj=obj)
            entry.override = override
            self._local[name] = entry
            self._seen_generation = -1
        return obj

    def deprecate(self, old: str, new: str | Alias, *, reason: str = "") -> None:
        """Make ``old`` an alias of ``new`` that warns (``DeprecationWarning``) when used."""
        if isinstance(new, Alias):
            reason, new = new.reason or reason, new.target
        with self._lock:
            self._local[old] = Entry(old, LOCAL, "", alias_of=new)
            self._local[old].target = reason or f"deprecated alias of {new}"
            self._seen_generation = -1

    def unregister(self, name: str) -> None:
        """Remove an in-process registration."""
        with self._lock:
            if self._local.pop(name, None) is None:
                raise UnknownComponentError(f"{name!r} was not registered in this process.")
            self._seen_generation = -1

    @contextlib.contextmanager
    def scoped(self) -> Iterator[Registry[T]]:
        """Registrations made inside ``with`` are undone when it ends (for tests)."""
        with self._lock:
            saved = dict(self._local)
        try:
            yield self
        finally:
            with self._lock:
                self._local = saved
                self._seen_generation = -1

    # -- internals ------------------------------------------------------------------------
    def _offers(self, name: str) -> tuple[str | None, str, list[Entry]]:
        """``(provider, bare name, entries)``: the entries offering ``name``, only the
        named provider's for a qualified ``"dist:Name.v1"``."""
        provider, bare = split_qualified(name)
        entries = self._entries().get(bare, [])
        if provider is not None:
            entries = [e for e in entries if e.provider == provider]
        return provider, bare, entries

    def _unknown(self, asked: str, bare: str, provider: str | None) -> UnknownComponentError:
        known_as = suggestion(self.kind, bare, self.__contains__)  # tables read only now
        return unknown_component(
            self.kind, self.group, self._entries(), asked, bare, provider, known_as
        )

    def _entries(self) -> dict[str, list[Entry]]:
        generation = catalog.generation
        if generation != self._seen_generation:
            with self._lock:
                index: dict[str, list[Entry]] = {}
                for ref in catalog.entry_points(self.group):
                    key = (ref.distribution, ref.name)
                    entry = self._plugin_entries.get(key)
                    # a failed load is retried after a rescan (the plugin may be fixed)
                    if entry is None or entry.ref != ref or entry.error is not None:
                        entry = Entry(ref.name, ref.distribution, ref.version, ref=ref)
                        self._plugin_entries[key] = entry
                    index.setdefault(ref.name, []).append(entry)
                for name, entry in self._local.items():
                    index.setdefault(name, []).append(entry)
                self._index = index
                self._seen_generation = catalog.generation
        return self._index

    @staticmethod
    def _usable(entries: list[Entry], blocked: frozenset[str]) -> bool:
        return any(e.provider not in blocked for e in entries)

    def _info(self, e: Entry) -> ComponentInfo:
        blocked = catalog.is_blocked(e.provider)
        incompatible = e.ref is not None and not compatible(e.provider)
        return describe(self.kind, e, blocked=blocked, incompatible=incompatible)

    def _load(self, e: Entry) -> T:
        if e.alias_of is not None:
            warnings.warn(
                f"{self.kind} component {e.name!r} is deprecated; use {e.alias_of!r}"
                + (f" ({e.target})" if not e.target.startswith("deprecated") else "")
                + ".",
                DeprecationWarning,
                stacklevel=3,
            )
            return self[e.alias_of]
        if e.obj is not UNSET:
            loaded: T = e.obj
            return loaded
        if e.error is not None:
            raise e.error
        with self._lock:
            if e.obj is not UNSET:
                return e.obj
            obj = load_entry(self.kind, e, self._problem)
            if isinstance(obj, Alias):
                e.alias_of = obj.target
                e.target = obj.reason or f"deprecated alias of {obj.target}"
                return self._load(e)
            e.obj = obj
            return obj

    def _problem(self, name: str, obj: Any) -> str | None:
        checks: list[tuple[str, Validator]] = []
        if self._validate is not None:
            checks.append(("", self._validate))
        if self._checks is not None:
            checks += self._checks()
        return run_checks(self.kind, name, obj, checks)
