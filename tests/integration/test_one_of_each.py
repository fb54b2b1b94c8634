"""One executor and one resolver across the core and every pack, each checked so a second
fails here: a ``tf.function`` is made only by the core's compile module (``tw.compile``,
``tw.graph.compile.trace``), and a component is looked up by a name given as a value only
through ``tw.resolve`` (no ``tw.registry(kind)[name]`` elsewhere)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Places outside the areas this check was written with, each with why; remove a row when
# its file is brought in line (the check then keeps it there).
TF_FUNCTION_ELSEWHERE = {
    "plugins/layers/tensorweave_layers/merge/merge.py": "Merge's own function check: tw.Lambda.output_spec",
    "plugins/losses/tensorweave_losses/sinkhorn.py": "a nested function for the Sinkhorn loop",
}
REGISTRY_LOOKUP_ELSEWHERE = {
    "core/tensorweave/testing/conformance.py": "a Case names its component exactly",
}


def _sources() -> list[Path]:
    """The packages' source files (tests, templates and build output left out)."""
    roots = [ROOT / "core" / "tensorweave", *sorted((ROOT / "plugins").glob("*/tensorweave_*"))]
    roots += sorted((ROOT / "contrib").glob("*/tensorweave_*"))
    return [
        path
        for root in roots
        for path in sorted(root.rglob("*.py"))
        if "templates" not in path.parts and "tests" not in path.parts
    ]


def _uses_tf_function(tree: ast.AST) -> list[int]:
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr == "function"
        and isinstance(node.value, ast.Name)
        and node.value.id == "tf"
    ]


def _registry_lookups(tree: ast.AST) -> list[int]:
    def is_registry_call(node: ast.AST) -> bool:
        if not isinstance(node, ast.Call):
            return False
        func = node.func
        return (isinstance(func, ast.Attribute) and func.attr == "registry") or (
            isinstance(func, ast.Name) and func.id == "registry"
        )

    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Subscript) and is_registry_call(node.value)
    ]


def _offenders(check: object, allowed: set[str]) -> list[str]:
    found = []
    for path in _sources():
        relative = str(path.relative_to(ROOT))
        if relative in allowed:
            continue
        lines = check(ast.parse(path.read_text()))  # type: ignore[operator]
        found += [f"{relative}:{line}" for line in lines]
    return found


def test_only_the_core_compile_module_makes_a_tf_function():
    allowed = {"core/tensorweave/graph/compile.py", *TF_FUNCTION_ELSEWHERE}
    assert _offenders(_uses_tf_function, allowed) == []


def test_only_tw_resolve_looks_a_name_up_in_a_registry():
    allowed = {"core/tensorweave/registries/resolve.py", *REGISTRY_LOOKUP_ELSEWHERE}
    assert _offenders(_registry_lookups, allowed) == []


def test_the_exceptions_listed_are_still_exceptions():
    """A row whose file no longer needs it is removed, so the lists only shrink."""
    for path in TF_FUNCTION_ELSEWHERE:
        assert _uses_tf_function(ast.parse((ROOT / path).read_text())), path
    for path in REGISTRY_LOOKUP_ELSEWHERE:
        assert _registry_lookups(ast.parse((ROOT / path).read_text())), path
