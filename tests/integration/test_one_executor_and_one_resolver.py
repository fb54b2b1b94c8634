"""One executor and one resolver across the core and every pack, each checked so a second
fails here: a ``tf.function`` is made only by the core's compile module (``tw.compile``,
``tw.graph.compile.trace``), and a component is looked up by name only through the one
resolver: ``tw.resolve`` (a name given as a value) and the config's ``lookup`` (a name in a
config). No ``registry(kind)[name]``, ``registry(kind).get(name)``, ``tw.layers[name]``,
``tw.<kind>.get(name)`` or the same on a name bound to a registry elsewhere."""

from __future__ import annotations

import ast
from pathlib import Path

import tensorweave as tw
from tensorweave.registries.registry import Registry

ROOT = Path(__file__).resolve().parents[2]

# Places outside the areas this check was written with, each with why; remove a row when
# its file is brought in line (the check then keeps it there).
TF_FUNCTION_ELSEWHERE = {
    "plugins/layers/tensorweave_layers/merge/merge.py": "Merge's own function check: tw.Lambda.output_spec",
    "plugins/losses/tensorweave_losses/losses/sinkhorn.py": "a nested function for the Sinkhorn loop",
    "plugins/train/tensorweave_train/runs/export/graph_steps.py": (
        "an export's signature over raw input: the preprocessing steps around the compiled "
        "model (tw.compile), one function a converter (tf2onnx, LiteRT) takes"
    ),
}
# The one resolver: ``tw.resolve`` (a name given as a value) and the config's ``lookup``
# (a name in a config), which share the registry's one rule (``Registry.get``).
RESOLVERS = {
    "core/tensorweave/registries/resolve.py",
    "core/tensorweave/config/resolver.py",
    "core/tensorweave/registries/registry.py",
}
REGISTRY_LOOKUP_ELSEWHERE = {
    "core/tensorweave/testing/conformance.py": "a Case names its component exactly",
    "plugins/models/tensorweave_models/build.py": "tw.layers['pack:Name.v1']: one pack's exact layer",
    "plugins/models/tensorweave_models/efficientnet_v2.py": "tw.initializers[...]: one pack's exact initializer",
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


def _registry_names() -> set[str]:
    """The registries ``tw`` holds as attributes (``tw.layers``, ``tw.activations``...)."""
    return {name for name in dir(tw) if isinstance(getattr(tw, name, None), Registry)}


def _registry_lookups(tree: ast.AST) -> list[int]:
    """Lines looking a name up in a registry: ``registry(kind)[name]``,
    ``registry(kind).get(name)``, ``tw.layers[name]`` / ``tw.<kind>.get(name)``, and the
    same on a name bound to a registry (``reg = tw.registry(kind)``; ``reg[name]``,
    ``reg.get(name)``)."""
    kinds = _registry_names()

    def is_registry(node: ast.AST, bound: set[str]) -> bool:
        if isinstance(node, ast.Call):
            func = node.func
            return (isinstance(func, ast.Attribute) and func.attr == "registry") or (
                isinstance(func, ast.Name) and func.id == "registry"
            )
        if isinstance(node, ast.Attribute):  # tw.layers
            return isinstance(node.value, ast.Name) and node.value.id == "tw" and node.attr in kinds
        return isinstance(node, ast.Name) and node.id in bound

    bound: set[str] = set()  # names bound to a registry anywhere in the module
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and is_registry(node.value, set()):
            bound |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.withitem) and is_registry(node.context_expr, set()):
            if isinstance(node.optional_vars, ast.Name):
                bound.add(node.optional_vars.id)
        elif (  # with tw.registry(kind).scoped() as reg
            isinstance(node, ast.withitem)
            and isinstance(node.context_expr, ast.Call)
            and isinstance(node.context_expr.func, ast.Attribute)
            and node.context_expr.func.attr == "scoped"
            and is_registry(node.context_expr.func.value, set())
            and isinstance(node.optional_vars, ast.Name)
        ):
            bound.add(node.optional_vars.id)
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Subscript) and is_registry(node.value, bound)) or (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and is_registry(node.func.value, bound)
        ):
            found.append(node.lineno)
    return found


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
    allowed = {*RESOLVERS, *REGISTRY_LOOKUP_ELSEWHERE}
    assert _offenders(_registry_lookups, allowed) == []


def test_the_exceptions_listed_are_still_exceptions():
    """A row whose file no longer needs it is removed, so the lists only shrink."""
    for path in TF_FUNCTION_ELSEWHERE:
        assert _uses_tf_function(ast.parse((ROOT / path).read_text())), path
    for path in REGISTRY_LOOKUP_ELSEWHERE:
        assert _registry_lookups(ast.parse((ROOT / path).read_text())), path
