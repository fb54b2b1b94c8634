"""What can be wrong with the installed packs, seen from metadata and source alone.

``tensorweave plugins`` reports these without importing any plugin, and ``plugins --check``
fails on them, so a pack's CI can gate on them:

- ``clashes``: a name offered by several distributions in one kind. The bare name then
  raises ``ComponentConflictError`` at the first lookup (a built-in job fails), so it
  shows here first, with the qualified names that pick each provider;
- ``undeclared_kinds``: kinds that installed packs fill but none declares with a
  ``tw.Kind`` (no check runs on their components, nothing says what they are);
- ``broken_targets``: entry points whose ``module:object`` does not exist in the
  installed source (a typo in a pack's ``pyproject.toml``), with close matches.

>>> clashes() == [] or all(len(c.distributions) > 1 for c in clashes())
True
"""

from __future__ import annotations

from dataclasses import dataclass

from tensorweave.registries.discovery import (
    GROUP_PREFIX,
    KINDS_GROUP,
    META_GROUPS,
    EntryPointRef,
    catalog,
)
from tensorweave.registries.kinds import declared_kinds, kinds
from tensorweave.registries.sources import target_problem

__all__ = ["Clash", "BrokenTarget", "clashes", "undeclared_kinds", "broken_targets"]


@dataclass(frozen=True)
class Clash:
    """One name of one kind offered by several distributions (``"local"`` for in-process
    registrations)."""

    kind: str
    name: str
    distributions: tuple[str, ...]
    versions: tuple[str, ...]

    @property
    def qualified_names(self) -> tuple[str, ...]:
        """The names that pick one provider each: ``("dist-a:Linear.v1", ...)``."""
        return tuple(f"{d}:{self.name}" for d in self.distributions)

    def describe(self) -> str:
        """``layers Linear.v1: a 1.0, b 2.0; ask for a:Linear.v1 or b:Linear.v1``."""
        offered = ", ".join(
            f"{d} {v}".strip() for d, v in zip(self.distributions, self.versions, strict=True)
        )
        return (
            f"{self.kind} {self.name} is offered by {offered}; ask for "
            f"{' or '.join(self.qualified_names)}, or uninstall/block one"
        )


@dataclass(frozen=True)
class BrokenTarget:
    """An entry point whose target is not in the installed source of its distribution."""

    ref: EntryPointRef
    problem: str

    @property
    def kind(self) -> str:
        return self.ref.group.removeprefix(GROUP_PREFIX)

    def describe(self) -> str:
        """What is wrong, and the fix for the pack's author: the ``pyproject.toml`` line."""
        return (
            f"{self.kind} {self.ref.name} from {self.ref.distribution} {self.ref.version}: "
            f"its entry point {self.ref.value!r} cannot load: {self.problem}.\n"
            f"    Fix (author of {self.ref.distribution}): correct the line "
            f'"{self.ref.name}" = "{self.ref.value}" under '
            f'[project.entry-points."{self.ref.group}"] in its pyproject.toml and reinstall '
            f"it (pip install -e . re-reads entry points)"
        )


def clashes() -> list[Clash]:
    """Every name offered by more than one usable (not blocked) distribution."""
    blocked = catalog.blocked()
    found = []
    for kind, reg in kinds().items():
        by_name: dict[str, list[tuple[str, str]]] = {}
        for info in reg.infos():
            if info.distribution not in blocked and info.status != "incompatible":
                by_name.setdefault(info.name, []).append((info.distribution, info.version))
        for name, offers in sorted(by_name.items()):
            if len(offers) > 1:
                dists, versions = zip(*offers, strict=True)
                found.append(Clash(kind, name, tuple(dists), tuple(versions)))
    return found


def undeclared_kinds() -> dict[str, list[str]]:
    """``{kind: [distributions that fill it]}`` for kinds no installed pack declares."""
    declared = declared_kinds()
    out: dict[str, list[str]] = {}
    for group, refs in sorted(catalog.groups().items()):
        kind = group.removeprefix(GROUP_PREFIX)
        if group in META_GROUPS or kind in declared:
            continue
        usable = [r for r in refs if not catalog.is_blocked(r.distribution)]
        if usable:
            out[kind] = sorted({f"{r.distribution} {r.version}" for r in usable})
    return out


def broken_targets() -> list[BrokenTarget]:
    """Component and kind entry points whose target the installed source does not hold.

    Each module is located and parsed once (``sources``); nothing is imported.
    """
    found = []
    for group, refs in sorted(catalog.groups().items()):
        if group in META_GROUPS and group != KINDS_GROUP:
            continue  # hook modules and tables load whole modules: checked when loaded
        for ref in refs:
            if catalog.is_blocked(ref.distribution):
                continue
            problem = target_problem(ref.value)
            if problem is not None:
                found.append(BrokenTarget(ref, problem))
    return found
