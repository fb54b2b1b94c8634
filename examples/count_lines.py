"""Lines of code of the gallery's files, as docs/gallery.md counts them: non-blank lines
that are not comments, and in Python not docstrings either (module, class and function
docstrings are prose, not program). Run it: ``python examples/count_lines.py FILE...``.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path


def docstring_lines(source: str) -> set[int]:
    """The line numbers of every module, class and function docstring in ``source``."""
    lines: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            value = first.value if isinstance(first, ast.Expr) else None
            if (
                first is not None
                and isinstance(value, ast.Constant)
                and isinstance(value.value, str)
            ):
                lines.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return lines


def count_lines(path: Path) -> int:
    """Non-blank, non-comment (and, in ``.py`` files, non-docstring) lines of ``path``."""
    source = path.read_text()
    skip = docstring_lines(source) if path.suffix == ".py" else set()
    return sum(
        1
        for number, line in enumerate(source.splitlines(), 1)
        if line.strip() and not line.strip().startswith("#") and number not in skip
    )


if __name__ == "__main__":
    for name in sys.argv[1:]:
        print(f"{count_lines(Path(name)):5d}  {name}")
