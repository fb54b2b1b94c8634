"""The public API: ``tensorweave.__all__`` matches what ``__init__`` imports, and no
submodule exports underscore names."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import types
from pathlib import Path

import pytest

import tensorweave as tw

INIT = Path(tw.__file__)


def _names_bound_by_init() -> set[str]:
    """Names ``__init__.py`` binds by importing from tensorweave submodules, eagerly or (in
    its ``TYPE_CHECKING`` block) lazily through its module ``__getattr__``."""
    tree = ast.parse(INIT.read_text())
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tensorweave"):
            bound |= {alias.asname or alias.name for alias in node.names}
    return bound


def _submodules() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(tw.__path__, prefix="tensorweave."):
        if info.name.split(".")[-1].startswith("_"):
            continue
        names.append(info.name)
    return sorted(names)


def test_all_lists_exactly_what_init_imports():
    assert sorted(tw.__all__) == sorted(_names_bound_by_init())


def test_all_has_no_duplicates_and_every_name_exists():
    assert len(tw.__all__) == len(set(tw.__all__))
    missing = [n for n in tw.__all__ if not hasattr(tw, n)]
    assert missing == []


def test_every_public_attribute_is_in_all():
    public = {
        n
        for n, obj in vars(tw).items()
        if not n.startswith("_") and not isinstance(obj, types.ModuleType)
    }
    assert public <= set(tw.__all__), sorted(public - set(tw.__all__))


def test_the_public_api_has_no_underscore_names():
    assert [n for n in tw.__all__ if n.startswith("_") and n != "__version__"] == []
    # nor objects that live in private modules
    private = [
        n
        for n in tw.__all__
        if (inspect.isclass(getattr(tw, n)) or inspect.isfunction(getattr(tw, n)))
        and any(part.startswith("_") for part in getattr(tw, n).__module__.split("."))
    ]
    assert private == []


@pytest.mark.parametrize("module_name", _submodules())
def test_no_submodule_exports_underscore_names(module_name):
    module = importlib.import_module(module_name)
    exported = getattr(module, "__all__", None)
    assert exported is not None, f"{module_name} has no __all__"
    assert [n for n in exported if n.startswith("_")] == []
    assert [n for n in exported if not hasattr(module, n)] == []


def test_public_classes_and_functions_are_documented():
    undocumented = [
        n
        for n in tw.__all__
        if (inspect.isclass(getattr(tw, n)) or inspect.isfunction(getattr(tw, n)))
        and not inspect.getdoc(getattr(tw, n))
    ]
    assert undocumented == []


def test_key_names_are_the_right_objects():
    assert tw.compile.__module__ == "tensorweave.graph.compile" and callable(tw.compile)
    assert isinstance(tw.ops, types.ModuleType) and tw.op is tw.ops.op
    assert tw.registry("layers") is tw.layers and tw.plugins.__class__.__name__ == "Plugins"
    assert isinstance(tw.__version__, str)


def test_the_lazily_exported_graph_names_are_the_graph_packages_own():
    """``tw.<name>`` for graph names is served lazily from a list kept in ``tensorweave``
    (reading ``tensorweave.graph.__all__`` would import TensorFlow): it must stay a subset of
    what ``tensorweave.graph`` exports, each resolving to the same object."""
    import tensorweave as tw
    import tensorweave.graph as graph

    assert set(graph.__all__) >= tw._GRAPH_NAMES
    assert all(getattr(tw, name) is getattr(graph, name) for name in tw._GRAPH_NAMES)
