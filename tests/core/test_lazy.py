"""``tw.lazy_exports``: a name is imported on first use, from the submodule that defines it."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

import tensorweave as tw


@pytest.fixture
def pack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A package ``lazy_pack`` with submodules ``table`` (defining ``table``), ``kinds``
    (defining no ``kinds``) and ``ops`` (defining ``double``)."""
    root = tmp_path / "lazy_pack"
    (root / "files").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "files" / "__init__.py").write_text("")
    (root / "files" / "table.py").write_text("def table():\n    return 'the function'\n")
    (root / "kinds.py").write_text("NAMES = ['a']\n")
    (root / "ops.py").write_text("def double(x):\n    return 2 * x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "lazy_pack"
    for name in [m for m in sys.modules if m.split(".")[0] == "lazy_pack"]:
        del sys.modules[name]


def _with_exports(name: str, exports: dict[str, str]) -> types.ModuleType:
    module = __import__(name)
    module.__getattr__, module.__dir__ = tw.lazy_exports(name, exports)  # type: ignore[attr-defined]
    return module


def test_a_name_comes_from_its_submodule_and_is_cached(pack: str) -> None:
    module = _with_exports(pack, {"double": "ops"})
    assert f"{pack}.ops" not in sys.modules  # nothing imported before the first use
    assert module.double(4) == 8
    assert f"{pack}.ops" in sys.modules
    assert "double" in vars(module)  # the next access is an ordinary attribute
    assert "double" in dir(module)


def test_a_submodule_named_like_its_function_exports_the_function(pack: str) -> None:
    module = _with_exports(pack, {"table": "files.table"})
    assert callable(module.table) and module.table() == "the function"


def test_a_submodule_without_a_same_named_attribute_exports_the_submodule(pack: str) -> None:
    module = _with_exports(pack, {"kinds": "kinds"})
    assert isinstance(module.kinds, types.ModuleType) and module.kinds.NAMES == ["a"]


def test_an_unknown_name_is_an_attribute_error_naming_the_package(pack: str) -> None:
    module = _with_exports(pack, {"double": "ops"})
    with pytest.raises(AttributeError, match="'lazy_pack' has no attribute 'triple'"):
        module.triple  # noqa: B018
