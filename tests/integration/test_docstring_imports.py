"""Docstring examples import what they use, so they run when pasted.

No conftest injects names into the doctests any more; this test reads every docstring of
the core, the packs and the contrib packs (no imports, only ``ast``) and says which example
uses ``np``, ``tf`` or ``tw`` without importing it first.
"""

from __future__ import annotations

import ast
import doctest
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NAMES = {"np": "numpy as np", "tf": "tensorflow as tf", "tw": "tensorweave as tw"}


def _docstrings(tree: ast.AST) -> list[ast.Constant]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                found.append(first.value)
    return found


def _used_before_import(doc: str) -> list[str]:
    """The names of ``NAMES`` an example uses before an example imports (or assigns) them."""
    bound: set[str] = set()
    unbound: list[str] = []
    for example in doctest.DocTestParser().get_examples(doc):
        try:
            tree = ast.parse(example.source)
        except SyntaxError:
            used = [n for n in NAMES if re.search(rf"(?<![\w.]){n}\.", example.source)]
            unbound += [n for n in used if n not in bound]
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                bound |= {a.asname or a.name for a in node.names}
            elif isinstance(node, ast.Assign):
                bound |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id in NAMES and node.id not in bound:
                unbound.append(node.id)
    return sorted(set(unbound))


def _sources() -> list[Path]:
    return sorted(
        p
        for part in ("core", "plugins", "contrib")
        for p in (ROOT / part).rglob("*.py")
        if ".egg-info" not in p.parts and "__pycache__" not in p.parts
    )


def test_no_conftest_injects_names_into_doctests():
    for conftest in ROOT.rglob("conftest.py"):
        if ".git" not in conftest.parts:
            assert "doctest_namespace" not in conftest.read_text(), conftest


def test_every_docstring_example_imports_np_tf_tw_before_using_them():
    problems = []
    for path in _sources():
        for const in _docstrings(ast.parse(path.read_text())):
            names = _used_before_import(const.value)
            if names:
                want = ", ".join(NAMES[n] for n in names)
                problems.append(f"{path.relative_to(ROOT)}:{const.lineno}: add >>> import {want}")
    assert not problems, "\n".join(problems)
