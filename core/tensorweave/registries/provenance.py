"""Which distribution provides a component: from installed metadata, a qualified name, or
the provenance a saved run recorded. No table of names: the core knows no plugin.

A filled config records, beside every component, the distribution and version it came from
(``"@provider": "my-pack 1.2.0"``). When a config names a component that is not installed,
that record (or the ``dist:`` of a qualified name) says what to ``pip install``.

>>> provider_of("doc_kind", "my-pack:Thing.v1")
'my-pack'
>>> hint_for("doc_kind", "Thing.v1", recorded="my-pack 1.2.0")
"Thing.v1 was provided by my-pack 1.2.0 when the config was saved: pip install 'my-pack==1.2.0'"
>>> hint_for("doc_kind", "NoSuch.v1") is None
True
"""

from __future__ import annotations

import platform
from importlib import metadata

from tensorweave.registries.discovery import CORE_VERSION, GROUP_PREFIX, catalog, normalize
from tensorweave.registries.entries import LOCAL, split_qualified

__all__ = ["provider_of", "providers_of", "hint_for", "library_versions", "parse_recorded"]


def providers_of(kind: str, name: str) -> list[str]:
    """Installed distributions whose metadata offers ``name`` of ``kind`` (no import)."""
    bare = split_qualified(name)[1]
    return [
        ref.distribution for ref in catalog.entry_points(GROUP_PREFIX + kind) if ref.name == bare
    ]


def provider_of(kind: str, name: str, *, recorded: str | None = None) -> str | None:
    """The distribution that provides (or provided) ``name`` of ``kind``, if known.

    In order: the ``dist:`` part of a qualified name, installed metadata, then the
    ``recorded`` provenance (``"dist version"``) a saved config carries.
    """
    provider, _ = split_qualified(name)
    if provider is not None and provider != LOCAL:
        return provider
    installed = providers_of(kind, name)
    if installed:
        return installed[0]
    if recorded:
        return parse_recorded(recorded)[0]
    return None


def parse_recorded(recorded: str) -> tuple[str, str]:
    """``"my-pack 1.2.0"`` -> ``("my-pack", "1.2.0")``; a bare name gets version ``""``."""
    dist, _, version = recorded.strip().partition(" ")
    return normalize(dist), version.strip()


def hint_for(kind: str, name: str, *, recorded: str | None = None) -> str | None:
    """What to install for a component that is not available, or ``None`` if unknown.

    Args:
        kind: the component kind.
        name: the name asked for (bare or ``dist:Name.v1``).
        recorded: the ``"@provider"`` a saved config recorded for it, if any.
    """
    provider, bare = split_qualified(name)
    if recorded and recorded != LOCAL:
        dist, version = parse_recorded(recorded)
        pin = f"'{dist}=={version}'" if version else dist
        where = f"{dist} {version}".strip()
        if _installed_version(dist) is None:
            return f"{bare} was provided by {where} when the config was saved: pip install {pin}"
        return (
            f"{bare} was provided by {where} when the config was saved; the installed "
            f"{dist} {_installed_version(dist)} does not offer it: pip install {pin}"
        )
    if provider is not None and provider != LOCAL:
        installed = _installed_version(provider)
        if installed is None:
            return (
                f"{bare} is asked from {provider}, which is not installed: pip install {provider}"
            )
        return f"{provider} {installed} is installed but does not offer {kind} {bare!r}"
    return None


def _installed_version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def library_versions() -> dict[str, object]:
    """tensorweave, tensorflow, python and every plugin distribution, with versions."""
    return {
        "tensorweave": CORE_VERSION,
        "tensorflow": _installed_version("tensorflow") or "not installed",
        "python": platform.python_version(),
        "plugins": {name: d.version for name, d in sorted(catalog.distributions().items())},
    }
