"""Find installed plugin distributions and their entry points, importing none of them.

One scan reads the metadata of every installed distribution once, keeps the entry points
whose group starts with ``tensorweave.``, and notes for each distribution its version, the
``tensorweave`` version range it declares in ``Requires-Dist`` and whether it is blocked
(``TENSORWEAVE_BLOCK=dist-a,dist-b`` or ``tw.plugins.block("dist-a")``). Nothing is loaded
here: that waits until a component is asked for by name.

>>> from tensorweave.registries.discovery import catalog
>>> isinstance(catalog.groups(), dict)
True
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

# importlib_metadata and packaging are imported when a scan first runs, not with the core,
# so ``import tensorweave`` stays cheap.

__all__ = [
    "GROUP_PREFIX",
    "KINDS_GROUP",
    "HOOKS_GROUP",
    "COUNTERPARTS_GROUP",
    "META_GROUPS",
    "CORE_VERSION",
    "BLOCK_ENV",
    "EntryPointRef",
    "DistributionInfo",
    "Catalog",
    "catalog",
    "normalize",
]

GROUP_PREFIX = "tensorweave."
KINDS_GROUP = "tensorweave.kinds"  # packs declare the component kinds they introduce here
HOOKS_GROUP = "tensorweave.plugins"  # pluggy hook modules (commands, hookspecs, callbacks)
COUNTERPARTS_GROUP = "tensorweave.counterparts"  # tables of Keras/TensorLayer names
# Groups that hold no components: every other ``tensorweave.<kind>`` group is a kind.
META_GROUPS = frozenset({KINDS_GROUP, HOOKS_GROUP, COUNTERPARTS_GROUP})
BLOCK_ENV = "TENSORWEAVE_BLOCK"
CORE_VERSION = "0.1.0"


def normalize(dist_name: str) -> str:
    """PEP 503 normalisation: ``My_Pack.Extras`` -> ``my-pack-extras``."""
    return re.sub(r"[-_.]+", "-", dist_name).lower()


@dataclass(frozen=True)
class EntryPointRef:
    """One ``[project.entry-points."tensorweave.KIND"]`` line of one distribution."""

    name: str
    group: str
    value: str
    distribution: str
    version: str
    _ep: Any = field(default=None, compare=False, repr=False)

    def pyproject_line(self) -> str:
        """Where its author wrote it: ``"Name.v1" = "pkg.mod:Obj" under
        [project.entry-points."tensorweave.layers"]``."""
        return f'"{self.name}" = "{self.value}" under [project.entry-points."{self.group}"]'

    def load(self) -> Any:
        """Import the module and return the object (the only place plugin code runs)."""
        if self._ep is not None:
            return self._ep.load()
        import importlib_metadata

        return importlib_metadata.EntryPoint(self.name, self.value, self.group).load()


@dataclass
class DistributionInfo:
    """A distribution that offers tensorweave entry points."""

    name: str
    version: str
    requires_core: str = ""
    entry_points: list[EntryPointRef] = field(default_factory=list)

    @property
    def compatible(self) -> bool:
        """Whether this core's version is in the range the distribution declares."""
        return _in_range(CORE_VERSION, self.requires_core)


def _in_range(version: str, spec: str) -> bool:
    if not spec:
        return True
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.version import Version

    try:
        requirement = Requirement(f"tensorweave{spec}")
    except InvalidRequirement:
        return True
    return requirement.specifier.contains(Version(version), prereleases=True)


def _core_requirement(requires: Iterable[str] | None) -> str:
    from packaging.requirements import InvalidRequirement, Requirement

    for line in requires or ():
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue
        if normalize(req.name) == "tensorweave" and req.marker is None:
            return str(req.specifier)
    return ""


def _parse_entry_points(text: str) -> list[tuple[str, str, str]]:
    """``(group, name, value)`` of the ``tensorweave.*`` sections of an entry_points.txt.

    The file is INI-like (``[group]`` then ``name = value`` lines, ``#``/``;`` comments);
    reading only our sections, once, keeps listing 1,000 entry points in a few milliseconds.
    """
    out: list[tuple[str, str, str]] = []
    group = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line[0] == "[" and line[-1] == "]":
            group = line[1:-1].strip()
            continue
        if group.startswith(GROUP_PREFIX) and "=" in line:
            name, value = line.split("=", 1)
            out.append((group, name.strip(), value.strip()))
    return out


class Catalog:
    """The scanned entry points of every installed tensorweave plugin distribution."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._distributions: dict[str, DistributionInfo] | None = None
        self._blocked: set[str] = set()
        self._generation = 0

    @property
    def generation(self) -> int:
        """Increments on every rescan or block change, so registries know to re-index."""
        return self._generation

    def distributions(self) -> dict[str, DistributionInfo]:
        """Every distribution with a ``tensorweave.*`` entry point, by normalised name."""
        if self._distributions is None:
            with self._lock:
                if self._distributions is None:
                    self._distributions = self._scan()
        return self._distributions

    def groups(self) -> dict[str, list[EntryPointRef]]:
        """Entry points by group (``tensorweave.layers`` -> [...])."""
        out: dict[str, list[EntryPointRef]] = {}
        for dist in self.distributions().values():
            for ep in dist.entry_points:
                out.setdefault(ep.group, []).append(ep)
        return out

    def entry_points(self, group: str) -> list[EntryPointRef]:
        """The entry points of one group, in distribution order."""
        return self.groups().get(group, [])

    def loadable(self, group: str) -> list[EntryPointRef]:
        """The entry points of ``group`` whose distribution may be loaded: not blocked, and
        made for this core (its ``Requires-Dist`` range holds ``CORE_VERSION``)."""
        dists = self.distributions()
        return [
            ref
            for ref in self.entry_points(group)
            if not self.is_blocked(ref.distribution)
            and (ref.distribution not in dists or dists[ref.distribution].compatible)
        ]

    def kind_names(self) -> set[str]:
        """Every component kind installed metadata knows of: the ``tensorweave.<kind>``
        groups that hold components, and the kinds declared in ``tensorweave.kinds``."""
        groups = self.groups()
        found = {g.removeprefix(GROUP_PREFIX) for g in groups}
        found |= {ref.name for ref in groups.get(KINDS_GROUP, [])}
        return found - {group.removeprefix(GROUP_PREFIX) for group in META_GROUPS}

    def refresh(self) -> None:
        """Scan again (after ``pip install`` in a running process)."""
        with self._lock:
            self._distributions = None
            self._generation += 1

    # -- blocking ------------------------------------------------------------------------
    def blocked(self) -> frozenset[str]:
        """Normalised names of blocked distributions (API and ``TENSORWEAVE_BLOCK``)."""
        env = {normalize(n.strip()) for n in os.environ.get(BLOCK_ENV, "").split(",") if n.strip()}
        return frozenset(env | self._blocked)

    def is_blocked(self, distribution: str) -> bool:
        """Whether ``distribution`` is blocked."""
        return normalize(distribution) in self.blocked()

    def block(self, distribution: str) -> None:
        """Refuse every component of ``distribution`` from now on."""
        self._blocked.add(normalize(distribution))
        self._generation += 1

    def unblock(self, distribution: str) -> None:
        """Undo ``block`` (the environment variable still applies)."""
        self._blocked.discard(normalize(distribution))
        self._generation += 1

    # -- scanning ------------------------------------------------------------------------
    def _scan(self) -> dict[str, DistributionInfo]:
        import importlib_metadata

        found: dict[str, DistributionInfo] = {}
        for dist in importlib_metadata.distributions():
            try:
                # Cheap text test first: most installed distributions are not plugins.
                text = dist.read_text("entry_points.txt")
                if not text or f"[{GROUP_PREFIX}" not in text:
                    continue
                eps = _parse_entry_points(text)
                if not eps:
                    continue
                meta = dist.metadata
            except Exception:  # unreadable metadata: not ours to judge, skip it
                continue
            key = normalize(meta["Name"] or "unknown")
            if key in found:  # the same distribution seen twice on sys.path: first wins
                continue
            version = meta["Version"] or "0"
            info = DistributionInfo(key, version, _core_requirement(meta.get_all("Requires-Dist")))
            info.entry_points = [
                EntryPointRef(name, group, value, key, version) for group, name, value in eps
            ]
            found[key] = info
        self._generation += 1
        return found


catalog = Catalog()
