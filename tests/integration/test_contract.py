"""The plugin contract, checked on the installed first-party packs, in fresh interpreters.

- a lookup imports its provider's modules and nothing of other packs (``-X importtime``);
- ``tensorweave plugins`` and ``tensorweave describe`` never import TensorFlow, and
  describe every listed component of every kind;
- the core names no plugin, and its subpackages import each other in one direction only.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "core" / "tensorweave"


def _python(code: str, *flags: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, *flags, "-c", code], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def _first_party_packs() -> dict[str, str]:
    """``{distribution: package}`` of every pack under plugins/."""
    packs = {}
    for pyproject in sorted((ROOT / "plugins").glob("*/pyproject.toml")):
        meta = tomllib.loads(pyproject.read_text())
        packs[meta["project"]["name"]] = meta["project"]["name"].replace("-", "_")
    return packs


LOOKUPS = [
    ("layers", "Linear.v1", "tensorweave_layers"),
    ("cells", "LSTMCell.v1", "tensorweave_rnn"),
    ("losses", "mse.v1", "tensorweave_losses"),
    ("datasets", "digits.v1", "tensorweave_data"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "name", "package"), LOOKUPS, ids=[k for k, *_ in LOOKUPS])
def test_a_lookup_imports_its_provider_and_no_other_pack(kind, name, package):
    code = f"import tensorweave as tw; tw.registry({kind!r})[{name!r}]"
    stderr = _python(code, "-X", "importtime").stderr
    imported = set(re.findall(r"\|\s+(tensorweave_[a-z_]+)(?:\.[\w.]+)?\s*$", stderr, re.M))
    assert package in imported, f"{name} did not import its provider {package}"
    assert imported - {package} == set(), f"{kind} {name} also imported {imported - {package}}"


LISTING = """
import json, sys
from tensorweave.cli import main
from tensorweave.registries import kinds
codes = [main(["plugins"])]
for kind, reg in kinds().items():
    for name in reg.names():
        codes.append(main(["describe", "--kind", kind, name]))
print(json.dumps({"codes": codes, "tensorflow": "tensorflow" in sys.modules}))
"""


@pytest.mark.slow
def test_plugins_and_describe_import_no_tensorflow_and_describe_every_component():
    done = _python(LISTING)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["tensorflow"] is False
    assert set(result["codes"]) == {0} and len(result["codes"]) > 100
    unreadable = [line for line in done.stdout.splitlines() if "not readable from source" in line]
    assert unreadable == []
    assert "digits.v1  (datasets, from tensorweave-data" in done.stdout


def test_the_registry_and_the_command_line_import_no_tensorflow():
    code = "import sys, tensorweave, tensorweave.registries, tensorweave.cli; print('tensorflow' in sys.modules)"
    assert _python(code).stdout.strip() == "False"


def test_the_core_names_no_plugin():
    packs = _first_party_packs()
    assert packs, "no first-party packs found under plugins/"
    pattern = re.compile("|".join(re.escape(n) for pair in packs.items() for n in pair))
    offenders = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sorted(CORE.rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert offenders == []


# Which core subpackages each may import at module level (the layering of the core).
ALLOWED = {
    "errors": set(),
    "checks": {"errors"},
    "lazy": set(),
    "keywords": {"errors"},  # unknown keywords: Python calls and configs alike
    "registries": {"errors"},
    "graph": {"errors", "checks", "registries", "keywords"},
    "drawing": {"errors", "graph"},  # pictures of graphs and their table of layers
    "config": {"errors", "checks", "registries", "graph", "keywords"},
    "cli": {"errors", "registries"},  # no graph, no config: no TensorFlow
    "__main__": {"cli"},  # python -m tensorweave
    "testing": {"errors", "checks", "registries", "graph", "config", "cli", ""},
    "": {
        "errors",
        "checks",
        "lazy",
        "registries",
        "graph",
        "drawing",
        "config",
        "keywords",
    },  # __init__
}


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "tensorweave" else ""


def _imports(path: Path) -> tuple[set[str], list[str]]:
    """Core subpackages ``path`` imports at module level, and imports hidden in functions."""
    tree = ast.parse(path.read_text())
    top: set[str] = set()
    hidden: list[str] = []

    def visit(node: ast.AST, in_function: bool, type_checking: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                visit(child, in_function, True)
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                names = (
                    [child.module or ""]
                    if isinstance(child, ast.ImportFrom)
                    else [a.name for a in child.names]
                )
                for name in names:
                    if name == "tensorweave" or name.startswith("tensorweave."):
                        if in_function:
                            hidden.append(f"{path.relative_to(ROOT)}:{child.lineno}: {name}")
                        elif not type_checking:
                            targets = [name]
                            if isinstance(child, ast.ImportFrom) and name == "tensorweave":
                                targets = [f"tensorweave.{a.name}" for a in child.names]
                            top.update(_part(t) for t in targets)
            in_fn = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            visit(child, in_fn, type_checking)

    visit(tree, False, False)
    return top, hidden


def test_the_core_subpackages_import_in_one_direction_with_nothing_hidden():
    wrong, hidden = [], []
    for path in sorted(CORE.rglob("*.py")):
        relative = path.relative_to(CORE)
        part = (
            ""
            if len(relative.parts) == 1 and relative.name == "__init__.py"
            else (relative.parts[0] if len(relative.parts) > 1 else relative.stem)
        )
        top, inner = _imports(path)
        hidden += inner
        extra = top - ALLOWED[part] - {part}
        if extra:
            wrong.append(f"{relative} ({part or 'tensorweave'}) imports {sorted(extra)}")
    assert hidden == [], "imports of tensorweave inside functions hide the real dependencies"
    assert wrong == []
