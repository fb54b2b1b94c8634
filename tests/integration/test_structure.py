"""The shape of the code, read with ``ast`` (nothing is imported), for the core and each pack.

One test per rule, run on ``core/tensorweave`` and every pack (``plugins/*/tensorweave_*``,
``contrib/*/tensorweave_*``):

- no import cycle between modules: imports inside functions and ``if TYPE_CHECKING:``
  blocks count, relative imports are resolved, importing a package the module sits in
  (the pack's root included) is no edge;
- no ``from X import _name``: nothing reaches for another module's private names;
- no folder holds more than 20 modules at one level;
- no compatibility layer: no ``moved.py`` or ``renames.py``, no ``RENAMED`` table, no
  ``renamed_arguments``;
- ``DeprecationWarning``/``FutureWarning`` only in ``core/tensorweave/registries/`` (what
  the registry's ``Alias`` needs: versioned names are the one compatibility mechanism).

And the train pack's ``loop/`` imports nothing from ``runs/``, ``callbacks/`` or
``commands/``. Each failure names the modules.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = [
    ROOT / "core" / "tensorweave",
    *sorted((ROOT / "plugins").glob("*/tensorweave_*")),
    *sorted((ROOT / "contrib").glob("*/tensorweave_*")),
]
IDS = [str(p.relative_to(ROOT)) for p in PACKAGES]
MAX_MODULES = 20
# where the warnings of the one compatibility mechanism (the registry's Alias) live
WARNINGS_HOME = ROOT / "core" / "tensorweave" / "registries"
LOOP_MAY_NOT_IMPORT = ("runs", "callbacks", "commands")


@dataclass
class Package:
    """A package's modules, read from source: name -> file, imports and private imports."""

    root: Path
    files: dict[str, Path] = field(default_factory=dict)
    imports: dict[str, set[str]] = field(default_factory=dict)  # module -> modules it imports
    private: list[str] = field(default_factory=list)  # "module: from X import _name"


def _sources(root: Path) -> list[Path]:
    return sorted(
        f
        for f in root.rglob("*.py")
        if not {"tests", "templates"} & set(f.relative_to(root).parts[:-1])
    )


def _module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def _package(root: Path) -> Package:
    package = Package(root)
    package.files = {_module_name(root, f): f for f in _sources(root)}
    for module, path in package.files.items():
        inside = module if path.name == "__init__.py" else module.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):  # every level: functions too
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:  # relative: resolved against the package the module is in
                    base = inside.split(".")[: len(inside.split(".")) - (node.level - 1)]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                targets.add(source)
                targets.update(f"{source}.{alias.name}" for alias in node.names)
                package.private += [
                    f"{module}: from {source} import {alias.name}"
                    for alias in node.names
                    if alias.name.startswith("_")
                    and not alias.name.startswith("__")
                    and source != "__future__"
                ]
        package.imports[module] = {
            t
            for t in targets
            if t in package.files
            and t != module
            and t != root.name
            and not module.startswith(t + ".")  # a package the module sits in
        }
    return package


def _cycles(imports: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(imports):
        if start in index:
            continue
        work = [(start, iter(sorted(imports[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(imports[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def _cycle_text(component: list[str], imports: dict[str, set[str]]) -> str:
    members = set(component)
    edges = [f"{m} -> {t}" for m in component for t in sorted(imports[m] & members)]
    return f"  {', '.join(component)}\n    " + "\n    ".join(edges)


@pytest.mark.parametrize("root", PACKAGES, ids=IDS)
def test_no_import_cycle(root):
    package = _package(root)
    cycles = _cycles(package.imports)
    assert not cycles, (
        f"{len(cycles)} import cycle(s) in {root.relative_to(ROOT)} (imports in functions and "
        "under TYPE_CHECKING count):\n" + "\n".join(_cycle_text(c, package.imports) for c in cycles)
    )


@pytest.mark.parametrize("root", PACKAGES, ids=IDS)
def test_no_import_of_another_modules_private_names(root):
    private = _package(root).private
    assert not private, "imports of private names:\n  " + "\n  ".join(private)


@pytest.mark.parametrize("root", PACKAGES, ids=IDS)
def test_no_folder_holds_more_than_20_modules(root):
    folders = {f.parent for f in _sources(root)}
    crowded = {
        folder: sorted(f.stem for f in folder.glob("*.py") if f.name != "__init__.py")
        for folder in sorted(folders)
    }
    crowded = {k: v for k, v in crowded.items() if len(v) > MAX_MODULES}
    assert not crowded, "folders of more than 20 modules (group them by concept):\n" + "\n".join(
        f"  {folder.relative_to(ROOT)} ({len(names)}): {', '.join(names)}"
        for folder, names in crowded.items()
    )


@pytest.mark.parametrize("root", PACKAGES, ids=IDS)
def test_no_compatibility_layer(root):
    package = _package(root)
    shims = [f"{m} (its name)" for m, f in package.files.items() if f.stem in ("moved", "renames")]
    pattern = re.compile(r"\w*RENAMED\w*|renamed_arguments")
    for module, path in package.files.items():
        words = sorted(set(pattern.findall(path.read_text())))
        if words:
            shims.append(f"{module} ({', '.join(words)})")
    assert not shims, (
        "compatibility shims (nothing is released: rename, and write it in CHANGELOG.md):\n  "
        + "\n  ".join(shims)
    )


@pytest.mark.parametrize("root", PACKAGES, ids=IDS)
def test_deprecation_warnings_only_in_the_registry(root):
    package = _package(root)
    pattern = re.compile(r"DeprecationWarning|FutureWarning")
    warning = [
        f"{module} ({', '.join(sorted(set(pattern.findall(path.read_text()))))})"
        for module, path in package.files.items()
        if WARNINGS_HOME not in path.parents and pattern.search(path.read_text())
    ]
    assert not warning, (
        "deprecation warnings outside core/tensorweave/registries/ (the registry's Alias is "
        "the one compatibility mechanism):\n  " + "\n  ".join(warning)
    )


def test_the_train_loop_imports_nothing_above_it():
    root = ROOT / "plugins" / "train" / "tensorweave_train"
    imports = _package(root).imports
    above = tuple(f"{root.name}.{name}" for name in LOOP_MAY_NOT_IMPORT)
    upward = [
        f"{module} -> {target}"
        for module in sorted(imports)
        if module == f"{root.name}.loop" or module.startswith(f"{root.name}.loop.")
        for target in sorted(imports[module])
        if any(target == up or target.startswith(up + ".") for up in above)
    ]
    assert not upward, "loop/ imports runs/, callbacks/ or commands/:\n  " + "\n  ".join(upward)
