"""The package's shape: lazy public names, light modules for what the core imports without
loading a component, a few modules per concept behind one door, no reaching into another
module's private names, no module path of an earlier layout."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from tensorweave.testing import check_lazy_package, check_light_modules

PACKAGE = "tensorweave_train"
ROOT = Path(__file__).resolve().parents[1] / PACKAGE
LIGHT = [
    "tensorweave_train.kinds",
    "tensorweave_train.hooks",
    "tensorweave_train.commands",
    "tensorweave_train.runs.directory",
    "tensorweave_train.runs.lock",
    "tensorweave_train.runs.marker",
    "tensorweave_train.runs.output_paths",
]


def test_every_public_name_resolves_lazily():
    check_lazy_package(PACKAGE)


def test_light_modules_import_no_tensorflow_and_no_other_module_of_the_pack():
    allowed = [
        f"{PACKAGE}.{m}"
        for m in ("hookspecs", "commands.arguments", "runs", "loop", "loop.services")
    ]
    check_light_modules(PACKAGE, LIGHT, allowed=allowed)


def _sources() -> list[Path]:
    return sorted(ROOT.rglob("*.py"))


def test_a_few_modules_at_the_top_and_a_subpackage_per_concept():
    top = sorted(p.name for p in ROOT.glob("*.py"))
    assert len(top) <= 10, top
    packages = sorted(p.parent.name for p in ROOT.glob("*/__init__.py"))
    assert packages == ["callbacks", "commands", "configs", "gan", "loop", "optimizers", "runs"]


def test_no_module_imports_a_private_name_of_another_module():
    found = []
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module != "__future__":
                module = node.module or ""
                private = [a.name for a in node.names if a.name.startswith("_")]
                if private or any(part.startswith("_") for part in module.split(".")):
                    found.append(f"{path.relative_to(ROOT)}: from {module} import {private}")
    assert found == []


def test_the_saved_config_file_name_is_spelled_once():
    spelled = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in _sources()
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Constant) and node.value == "config.json"
    ]
    assert len(spelled) == 1, spelled  # Run.CONFIG, everywhere else


@pytest.mark.parametrize("old", ["trainer", "model", "rundir", "command_line", "job", "checkpoint"])
def test_the_module_paths_of_the_flat_layout_are_gone(old):
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(f"{PACKAGE}.{old}")
