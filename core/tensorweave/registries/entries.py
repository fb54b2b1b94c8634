"""What a registry holds: entries per (name, provider), their public description, aliases.

A name like ``"Linear.v2"`` carries its version; ``"my-pack:Linear.v2"`` also names
the distribution that provides it. ``ComponentInfo`` describes a component without importing
it; ``Alias`` marks a deprecated name that points to its replacement.

>>> split_version("Linear.v2"), split_qualified("My_Pack:Linear.v2")
(('Linear', 2), ('my-pack', 'Linear.v2'))
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from tensorweave.errors import PluginLoadError, UnknownComponentError
from tensorweave.registries.discovery import EntryPointRef, normalize

__all__ = [
    "LOCAL",
    "UNSET",
    "Alias",
    "alias",
    "ComponentInfo",
    "Entry",
    "describe",
    "split_version",
    "split_qualified",
    "unknown_component",
]

LOCAL = "local"  # the provider name of in-process registrations
_VERSIONED = re.compile(r"^(?P<base>.+)\.v(?P<version>\d+)$")
UNSET: Any = object()  # "no object loaded yet"


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
    alias_of: str = ""  # the name this one is a ``tw.alias`` of (known once it is loaded)

    @property
    def qualified_name(self) -> str:
        """``"distribution:Name.v1"``, unambiguous even when names clash."""
        return f"{self.distribution}:{self.name}"


class Entry:
    """One provider's offer of one name: where it comes from, and what loading it gave."""

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
        obj: Any = UNSET,
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


def describe(kind: str, e: Entry, *, blocked: bool, incompatible: bool) -> ComponentInfo:
    """The public ``ComponentInfo`` of an entry, with its status."""
    if blocked:
        status = "blocked"
    elif incompatible:
        status = "incompatible"
    elif e.error is not None:
        status = "failed"
    elif e.obj is not UNSET:
        status = "loaded"
    else:
        status = "available"
    cause = f"{type(e.error.cause).__name__}: {e.error.cause}" if e.error and e.error.cause else ""
    error = cause or (str(e.error) if e.error else "")
    return ComponentInfo(
        kind, e.name, e.provider, e.version, e.target, status, error, e.alias_of or ""
    )


def unknown_component(
    kind: str,
    group: str,
    index: dict[str, list[Entry]],
    asked: str,
    bare: str,
    provider: str | None,
    known_as: str = "",
) -> UnknownComponentError:
    """The error for a name no provider offers: what does that job here when ``asked`` is
    another library's name (``known_as``), close matches and the installed providers."""
    labels = {n: ", ".join(e.label() for e in es) for n, es in index.items()}
    close = difflib.get_close_matches(bare, list(index), n=4, cutoff=0.6)
    base = split_version(bare)[0].lower()
    close += [n for n in index if split_version(n)[0].lower() == base and n not in close]
    # a typo of the base name ("rleu" for relu.v1, "glorot" for glorot_uniform.v1)
    bases: dict[str, list[str]] = {}
    for n in index:
        bases.setdefault(split_version(n)[0].lower(), []).append(n)
    near = difflib.get_close_matches(base, list(bases), n=3, cutoff=0.6)
    near += [b for b in bases if len(base) >= 4 and b.startswith(base) and b not in near]
    close += [n for b in near[:3] for n in bases[b] if n not in close]
    dists: dict[str, int] = {}
    for es in index.values():
        for e in es:
            key = e.label()
            dists[key] = dists.get(key, 0) + 1
    lines = [f"no {kind} component {asked!r} (entry-point group {group!r})."]
    if known_as:
        lines.append(f"  {known_as}")
    if provider is not None and bare in index:
        lines.append(f"  {bare!r} exists, but not from {provider!r}: offered by {labels[bare]}")
    if provider is not None and provider != LOCAL and not _installed(provider):
        lines.append(f"  {provider} is not installed: pip install {provider}")
    if close:
        lines.append("  Close matches: " + ", ".join(f"{n} ({labels[n]})" for n in close))
    providers = ", ".join(f"{d} ({n})" for d, n in sorted(dists.items())) or "none"
    lines.append(f"  Installed providers of {kind}: {providers}")
    lines.append(
        "  Fix: check the spelling, or pip install the distribution that provides it; "
        "`tensorweave plugins` lists what is installed."
    )
    return UnknownComponentError("\n".join(lines))


def _installed(distribution: str) -> bool:
    try:
        metadata.distribution(distribution)
    except metadata.PackageNotFoundError:
        return False
    return True


def split_qualified(name: str) -> tuple[str | None, str]:
    """``"dist:Name.v1"`` -> ``("dist", "Name.v1")``; a bare name -> ``(None, name)``."""
    if ":" in name:
        provider, bare = name.split(":", 1)
        return (provider if provider == LOCAL else normalize(provider)), bare
    return None, name
