"""Write a folder of text files as people have them: the docstrings of Python's standard
library, one ``.txt`` file per module.

    python examples/text_lm/make_texts.py data/docstrings --max-bytes 200000

The text is read from the installed Python's own source with ``ast`` (nothing is imported
and nothing is downloaded): every module, class and function docstring of the standard
library's public top-level modules, in sorted order, until ``--max-bytes`` of text is written. The
same Python writes the same files.
"""

from __future__ import annotations

import argparse
import ast
import sysconfig
from pathlib import Path


def docstrings(source: str) -> list[str]:
    """The module, class and function docstrings of ``source``, in the file's order."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            text = ast.get_docstring(node)
            if text and text.isascii():
                found.append(text.strip())
    return found


def write(out: Path, max_bytes: int = 200_000) -> int:
    """Write the docstrings of the standard library's modules under ``out``, one file per
    module, until about ``max_bytes`` are written; returns how many files."""
    out.mkdir(parents=True, exist_ok=True)
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    written = files = 0
    for module in sorted(stdlib.glob("*.py")):
        if written >= max_bytes:
            break
        if module.stem.startswith("_"):  # private modules: little prose
            continue
        try:
            texts = docstrings(module.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        text = "\n\n".join(texts)[: max_bytes - written]
        if len(text) < 200:  # almost no prose: skip
            continue
        (out / f"{module.stem}.txt").write_text(text + "\n", encoding="utf-8")
        written += len(text) + 1
        files += 1
    return files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the folder to write (.txt files in it)")
    parser.add_argument("--max-bytes", type=int, default=200_000)
    args = parser.parse_args()
    n = write(args.out, args.max_bytes)
    print(f"wrote {n} text files under {args.out}")


if __name__ == "__main__":
    main()
