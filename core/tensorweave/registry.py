"""``Registry``: components of one kind by versioned name, found lazily through entry points.

Each kind (layers, cells, losses…) has one registry reading the entry-point group
``tensorweave.<kind>``. Listing names reads metadata only; the first lookup of a name
imports only that component's module, checks it is a valid component of its kind, and
caches it. Two distributions offering the same name never shadow each other: the bare
name raises ``ComponentConflictError`` naming both, and ``"dist-name:Name.v1"`` picks one.
A plugin that fails to import is recorded and reported only when its component is asked
for; everything else keeps working.

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
import difflib
import re
import threading
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from tensorweave.discovery import GROUP_PREFIX, EntryPointRef, catalog, normalize
from tensorweave.errors import (
    BlockedPluginError,
    ComponentConflictError,
    IncompatiblePluginError,
    InvalidComponentError,
    PluginLoadError,
    RegistryError,
    UnknownComponentError,
)

__all__ = ["Registry", "ComponentInfo", "Alias", "alias", "LOCAL", "split_version"]

T = TypeVar("T")
LOCAL = "local"  # the provider name of in-process registrations
_VERSIONED = re.compile(r"^(?P<base>.+)\.v(?P<version>\d+)$")
_UNSET: Any = object()


def split_version(name: str) -> tuple[str, int | None]:
    """``"Linear.v2"`` -> ``("Linear", 2)``; ``"Linear"`` -> ``("Linear", None)``."""
    match = _VERSIONED.match(name)
    if not match:
        return name, None
    return match["base"], int(match["version"])


@dataclass(frozen=True)
class Alias:
    """A deprecated name that points to its replacement (see ``alias``)."""

    target: str
    reason: str = ""


def alias(target: str, *, reason: str = "") -> Alias:
    """Mark a registered name as a deprecated alias of ``target``.

    An entry point may point at an ``Alias`` object; looking the old name up warns with a
    ``DeprecationWarning`` and returns the target, so old configs keep building::

        # tensorweave_mypack/aliases.py
        linear_v1 = tw.alias("Linear.v2", reason="v2 fixes the bias initialization")

        # pyproject.toml
        [project.entry-points."tensorweave.layers"]
        "Linear.v1" = "tensorweave_mypack.aliases:linear_v1"

    >>> import tensorweave as tw
    >>> tw.alias("Linear.v2").target
    'Linear.v2'
    """
    return Alias(target, reason)


@dataclass(frozen=True)
class ComponentInfo:
    """What a registry knows of one component without importing it."""

    kind: str
    name: str
    distribution: str
    version: str
    target: str
    status: str  # "available", "loaded", "failed", "blocked", "incompatible"
    error: str = ""

    @property
    def qualified_name(self) -> str:
        """``"distribution:Name.v1"``, unambiguous even when names clash."""
        return f"{self.distribution}:{self.name}"


class _Entry:
    __slots__ = (
        "alias_of",
        "error",
        "name",
        "obj",
        "override",
        "provider",
        "ref",
        "target",
        "version",
    )

    def __init__(
        self,
        name: str,
        provider: str,
        version: str,
        *,
        ref: EntryPointRef | None = None,
        obj: Any = _UNSET,
        alias_of: str | None = None,
    ) -> None:
        self.name = name
        self.provider = provider
        self.version = version
        self.ref = ref
        self.obj = obj
        self.error: PluginLoadError | None = None
        self.alias_of = alias_of
        self.override = False
        if ref is not None:
            self.target = ref.value
        elif alias_of is not None:
            self.target = f"alias of {alias_of}"
        else:
            module = getattr(obj, "__module__", "?")
            self.target = f"{module}:{getattr(obj, '__qualname__', type(obj).__name__)}"

    def label(self) -> str:
        return self.provider if self.provider == LOCAL else f"{self.provider} {self.version}"


Validator = Callable[[Any], "str | None"]


class Registry(Generic[T]):
    """The components of one kind, by name.

    Args:
        kind: the kind (``"layers"``); the entry-point group is ``tensorweave.<kind>``.
        validate: returns a problem (a string) when an object is not a valid component of
            this kind, ``None`` when it is; checked when a component loads or registers.
        doc: one line on what this kind is, for ``tensorweave plugins``.
    """

    def __init__(self, kind: str, *, validate: Validator | None = None, doc: str = "") -> None:
        self.kind = kind
        self.group = GROUP_PREFIX + kind
        self.doc = doc
        self._validate = validate
        self._lock = threading.RLock()
        self._local: dict[str, _Entry] = {}
        self._plugin_entries: dict[tuple[str, str], _Entry] = {}  # kept across re-indexing
        self._index: dict[str, list[_Entry]] = {}
        self._seen_generation = -1

    # -- listing (imports nothing) --------------------------------------------------------
    def names(self) -> list[str]:
        """Every available name, sorted (blocked distributions left out)."""
        return sorted(n for n, entries in self._entries().items() if self._usable(entries))

    def infos(self) -> list[ComponentInfo]:
        """One row per (name, provider), with its status, for listings and tooling."""
        return [self._info(e) for _, es in sorted(self._entries().items()) for e in es]

    def providers(self, name: str) -> list[str]:
        """The distributions offering ``name`` (``"local"`` for in-process registrations)."""
        return [e.provider for e in self._entries().get(name, [])]

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        provider, bare = _split_qualified(name)
        entries = self._entries().get(bare, [])
        if provider is not None:
            entries = [e for e in entries if e.provider == provider]
        return self._usable(entries)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, group={self.group!r})"

    # -- lookup ---------------------------------------------------------------------------
    def __getitem__(self, name: str) -> T:
        """The component registered exactly as ``name`` (or ``"dist:name"``), loaded."""
        provider, bare = _split_qualified(name)
        entries = self._entries().get(bare, [])
        if provider is not None:
            entries = [e for e in entries if e.provider == provider]
            if not entries:
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

    def get(self, name: str, default: Any = _UNSET) -> T:
        """Like ``[name]``, but an unversioned name picks the latest version (``Linear`` ->
        ``Linear.v2``), and ``default`` is returned instead of raising for unknown names."""
        try:
            provider, bare = _split_qualified(name)
            if split_version(bare)[1] is None and bare not in self._entries():
                latest = self.latest(bare, provider=provider)
                if latest is not None:
                    bare = latest
            return self[f"{provider}:{bare}" if provider else bare]
        except UnknownComponentError:
            if default is _UNSET:
                raise
            result: T = default
            return result

    def latest(self, base: str, *, provider: str | None = None) -> str | None:
        """The highest-versioned name ``base.vN`` available (from ``provider``, when given),
        or ``None``."""
        if provider is not None:
            provider = _split_qualified(f"{provider}:")[0]
        versions = [
            (v, n)
            for n in self.names()
            for b, v in [split_version(n)]
            if b == base and v is not None and (provider is None or provider in self.providers(n))
        ]
        return max(versions)[1] if versions else None

    def info(self, name: str) -> ComponentInfo:
        """What is known of ``name`` (its first provider), without loading it."""
        provider, bare = _split_qualified(name)
        entries = self._entries().get(bare, [])
        if provider is not None:
            entries = [e for e in entries if e.provider == provider]
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
    def register(self, name: str, obj: Any = _UNSET, *, override: bool = False) -> Any:
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
        if obj is _UNSET:

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
            entry = _Entry(name, LOCAL, "", obj=obj)
            entry.override = override
            self._local[name] = entry
            self._seen_generation = -1
        return obj

    def deprecate(self, old: str, new: str | Alias, *, reason: str = "") -> None:
        """Make ``old`` an alias of ``new`` that warns (``DeprecationWarning``) when used."""
        if isinstance(new, Alias):
            reason, new = new.reason or reason, new.target
        with self._lock:
            self._local[old] = _Entry(old, LOCAL, "", alias_of=new)
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
    def _entries(self) -> dict[str, list[_Entry]]:
        generation = catalog.generation
        if generation != self._seen_generation:
            with self._lock:
                index: dict[str, list[_Entry]] = {}
                for ref in catalog.entry_points(self.group):
                    key = (ref.distribution, ref.name)
                    entry = self._plugin_entries.get(key)
                    # a failed load is retried after a rescan (the plugin may be fixed)
                    if entry is None or entry.ref != ref or entry.error is not None:
                        entry = _Entry(ref.name, ref.distribution, ref.version, ref=ref)
                        self._plugin_entries[key] = entry
                    index.setdefault(ref.name, []).append(entry)
                for name, entry in self._local.items():
                    index.setdefault(name, []).append(entry)
                self._index = index
                self._seen_generation = catalog.generation
        return self._index

    @staticmethod
    def _usable(entries: list[_Entry]) -> bool:
        return any(not catalog.is_blocked(e.provider) for e in entries)

    def _info(self, e: _Entry) -> ComponentInfo:
        if catalog.is_blocked(e.provider):
            status = "blocked"
        elif e.ref is not None and not _compatible(e.provider):
            status = "incompatible"
        elif e.error is not None:
            status = "failed"
        elif e.obj is not _UNSET:
            status = "loaded"
        else:
            status = "available"
        cause = (
            f"{type(e.error.cause).__name__}: {e.error.cause}" if e.error and e.error.cause else ""
        )
        return ComponentInfo(
            self.kind,
            e.name,
            e.provider,
            e.version,
            e.target,
            status,
            cause or (str(e.error) if e.error else ""),
        )

    def _load(self, e: _Entry) -> T:
        if e.alias_of is not None:
            warnings.warn(
                f"{self.kind} component {e.name!r} is deprecated; use {e.alias_of!r}"
                + (f" ({e.target})" if not e.target.startswith("deprecated") else "")
                + ".",
                DeprecationWarning,
                stacklevel=3,
            )
            return self[e.alias_of]
        if e.obj is not _UNSET:
            loaded: T = e.obj
            return loaded
        if e.error is not None:
            raise e.error
        with self._lock:
            if e.obj is not _UNSET:
                return e.obj
            ref = e.ref
            assert ref is not None
            where = f"{self.kind} component {e.name!r} from {e.label()} (entry point {ref.value!r})"
            dist = catalog.distributions().get(e.provider)
            if dist is not None and not dist.compatible:
                from tensorweave.discovery import CORE_VERSION

                e.error = IncompatiblePluginError(
                    f"{where} was refused: {e.provider} supports tensorweave"
                    f"{dist.requires_core}, but this is tensorweave {CORE_VERSION}.\n  Fix: "
                    f"install a version of {e.provider} made for tensorweave {CORE_VERSION}.",
                    entry_point=e.name,
                    distribution=e.provider,
                    version=e.version,
                )
                raise e.error
            try:
                obj = ref.load()
            except Exception as err:
                e.error = PluginLoadError(
                    f"{where} failed to load: {type(err).__name__}: {err}\n  Fix: reinstall or "
                    f"upgrade {e.provider}, or block it with TENSORWEAVE_BLOCK={e.provider}; "
                    "other plugins are unaffected.",
                    entry_point=e.name,
                    distribution=e.provider,
                    version=e.version,
                    cause=err,
                )
                e.error.__cause__ = err
                warnings.warn(str(e.error), RuntimeWarning, stacklevel=3)
                raise e.error from err
            if isinstance(obj, Alias):
                e.alias_of = obj.target
                e.target = obj.reason or f"deprecated alias of {obj.target}"
                return self._load(e)
            problem = self._problem(e.name, obj)
            if problem:
                e.error = InvalidComponentError(
                    f"{where} is not a valid {self.kind} component: {problem}\n  Fix: the "
                    f"entry point must name a {self.kind} component; report it to {e.provider}.",
                    entry_point=e.name,
                    distribution=e.provider,
                    version=e.version,
                )
                raise e.error
            e.obj = obj
            return obj

    def _problem(self, name: str, obj: Any) -> str | None:
        if self._validate is not None:
            problem = self._validate(obj)
            if problem:
                return problem
        from tensorweave.plugins import plugins

        problems = plugins.validate_component(self.kind, name, obj)
        return "; ".join(problems) if problems else None

    def _unknown(self, asked: str, bare: str, provider: str | None) -> UnknownComponentError:
        index = self._entries()
        labels = {n: ", ".join(e.label() for e in es) for n, es in index.items()}
        close = difflib.get_close_matches(bare, list(index), n=4, cutoff=0.6)
        base = split_version(bare)[0].lower()
        close += [n for n in index if split_version(n)[0].lower() == base and n not in close]
        dists: dict[str, int] = {}
        for es in index.values():
            for e in es:
                key = e.label()
                dists[key] = dists.get(key, 0) + 1
        lines = [f"no {self.kind} component {asked!r} (entry-point group {self.group!r})."]
        if provider is not None and bare in index:
            lines.append(f"  {bare!r} exists, but not from {provider!r}: offered by {labels[bare]}")
        if close:
            lines.append("  Close matches: " + ", ".join(f"{n} ({labels[n]})" for n in close))
        providers = ", ".join(f"{d} ({n})" for d, n in sorted(dists.items())) or "none"
        lines.append(f"  Installed providers of {self.kind}: {providers}")
        lines.append(
            "  Fix: check the spelling, or pip install the distribution that provides it; "
            "`tensorweave plugins` lists what is installed."
        )
        return UnknownComponentError("\n".join(lines))


def _split_qualified(name: str) -> tuple[str | None, str]:
    if ":" in name:
        provider, bare = name.split(":", 1)
        return (provider if provider == LOCAL else normalize(provider)), bare
    return None, name


def _compatible(distribution: str) -> bool:
    dist = catalog.distributions().get(distribution)
    return dist is None or dist.compatible
