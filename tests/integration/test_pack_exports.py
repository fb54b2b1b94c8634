"""Every pack's lazily exported names are what they say, in whatever order things load.

A name whose submodule defines it (``tensorweave_data.table``, the function of
``files/table.py``) is that function, not the module. And no package has a *direct*
submodule named after a function it exports: importing that submodule (an entry point
does) would rebind the package's attribute to the module, so the same name would give the
function or the module depending on what was imported first.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _lazy_packages() -> list[tuple[str, Path]]:
    """(dotted name, folder) of every installed package of this repository whose
    ``__init__`` calls ``tw.lazy_exports``."""
    found = []
    for init in sorted(
        [*ROOT.glob("plugins/*/**/__init__.py"), *ROOT.glob("contrib/*/**/__init__.py")]
    ):
        pack_folder = init.relative_to(ROOT).parts[:2]
        parts = init.parent.relative_to(ROOT.joinpath(*pack_folder)).parts
        if (
            not parts
            or parts[0] in {"tests", "examples"}
            or "lazy_exports(" not in init.read_text()
        ):
            continue
        name = ".".join(parts)
        if importlib.util.find_spec(parts[0]) is None:  # a pack this environment lacks
            continue
        found.append((name, init.parent))
    return found


PACKAGES = _lazy_packages()


def _exports(package: types.ModuleType) -> tuple[dict[str, str], str]:
    """The package's name -> submodule table and the prefix its submodules are under."""
    table = vars(package).get("_EXPORTS") or vars(package).get("_LAZY")
    assert isinstance(table, dict), f"{package.__name__} calls lazy_exports without a table"
    source = Path(package.__file__ or "").read_text()
    absolute = re.search(r"lazy_exports\([^)]*base=\"\"", source) is not None
    return table, "" if absolute else package.__name__


def test_the_packages_are_found() -> None:
    names = {name for name, _ in PACKAGES}
    assert {"tensorweave_data", "tensorweave_losses", "tensorweave_train"} <= names


@pytest.mark.parametrize("name", [name for name, _ in PACKAGES])
def test_a_name_its_submodule_defines_is_that_object(name: str) -> None:
    package = importlib.import_module(name)
    table, prefix = _exports(package)
    for export, module in table.items():
        if module.rpartition(".")[2] != export:
            continue
        target = importlib.import_module(f"{prefix}.{module}" if prefix else module)
        expected = getattr(target, export, target)
        assert getattr(package, export) is expected, (
            f"{name}.{export} gives {getattr(package, export)!r}, not {expected!r}"
        )


@pytest.mark.parametrize("name,folder", PACKAGES)
def test_no_direct_submodule_is_named_after_an_exported_function(name: str, folder: Path) -> None:
    package = importlib.import_module(name)
    table, _ = _exports(package)
    for export in table:
        if not ((folder / f"{export}.py").exists() or (folder / export / "__init__.py").exists()):
            continue
        submodule = importlib.import_module(f"{name}.{export}")  # rebinds name.export
        assert getattr(package, export) is submodule
        assert not hasattr(submodule, export), (
            f"{name}/{export}.py defines {export!r}, which {name} also exports: importing the "
            f"submodule rebinds {name}.{export} to the module. Rename the module."
        )
