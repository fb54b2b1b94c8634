"""docs/deploy.md's support table: every registered layer × converted export format (``onnx``,
``litert``; a ``savedmodel`` is TensorFlow's own graph and is not converted), made by exporting
each layer's small graph (its first conformance case, ``tensorweave.testing.Case``, from the
packs' test tables) and running it in the format's runtime against ``predict``.

Regenerate the table (a few minutes; it rewrites the part of docs/deploy.md between the
``support-table`` markers)::

    python -m tensorweave_deploy.exporters.support --write docs/deploy.md

or only the rows of layers registered since (the others kept as they are): add ``--missing``.

The test ``plugins/deploy/tests/exporters/test_support_table.py`` checks that every
registered layer has a row and re-exports a sample of rows: a stale table fails it with
this command.

>>> row_text("Linear.v1", "tensorweave-layers", {"onnx": "yes", "litert": "yes"}, ["onnx", "litert"])
'| Linear.v1 | tensorweave-layers | yes | yes |'
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["FORMATS", "START", "END", "cases_by_layer", "support", "table", "row_text", "rows_of"]

FORMATS = ("onnx", "litert")  # the converters whose coverage varies (savedmodel: see the doc)
START = "<!-- support-table:start (python -m tensorweave_deploy.exporters.support --write docs/deploy.md) -->"
END = "<!-- support-table:end -->"
COMMAND = "python -m tensorweave_deploy.exporters.support --write docs/deploy.md"


def _case_modules(root: Path) -> list[Path]:
    return sorted(
        p
        for pattern in ("plugins/*/tests/**/*.py", "contrib/*/tests/**/*.py")
        for p in root.glob(pattern)
        if "TENSORWEAVE_CASES" in p.read_text(errors="replace")
    )


def cases_by_layer(root: Path, files: Sequence[Path] | None = None) -> dict[str, Any]:
    """The first conformance case (dense inputs) of each layer, by bare registered name,
    from the packs' test tables under ``root`` (or from ``files``)."""
    import dataclasses

    found: dict[str, Any] = {}
    for path in files if files is not None else _case_modules(root):
        sys.path.insert(0, str(path.parent))
        try:
            spec = importlib.util.spec_from_file_location(f"_support_{path.stem}", path)
            if spec is None or spec.loader is None:
                continue
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        except Exception:
            continue
        finally:
            sys.path.remove(str(path.parent))
        for case in getattr(module, "TENSORWEAVE_CASES", []):
            if getattr(case, "kind", None) != "layers" or not hasattr(case, "specs"):
                continue
            name = case.name.split(":")[-1]
            if not any(s.sparse for s in case.specs) and case.factory is None:
                found.setdefault(name, dataclasses.replace(case, name=name))
    return found


def support(case: Any, format: str) -> str:
    """``yes`` when the case's graph exports to ``format`` and its runtime answers as
    ``predict`` (within 1e-4), else what stops it."""
    import numpy as np

    import tensorweave as tw
    import tensorweave_train as twt
    from tensorweave.testing.conformance import build, sample

    tw.reset_names()
    try:
        layer, inputs = build(case)
        model = twt.Model(inputs=inputs, outputs=layer)
        values = [sample(s, 2, k) for k, s in enumerate(case.specs)]
        expected = model.predict(values if len(values) > 1 else values[0])
    except Exception as err:
        return f"untested ({type(err).__name__})"
    fmt = tw.resolve("exporters", format, owner="support table")()  # by its registered name
    with tempfile.TemporaryDirectory() as tmp:
        try:
            where = model.export(Path(tmp) / "m", format=format)
            got = fmt.load(where / fmt.artifact)(values)[0]
        except tw.TensorweaveError as err:
            ops = re.findall(r"the TensorFlow op (\w+)", str(err))
            return f"no: {', '.join(dict.fromkeys(ops))}" if ops else f"no ({type(err).__name__})"
        except Exception as err:
            return f"no ({type(err).__name__})"
    out = expected[0] if isinstance(expected, (list, tuple)) else expected
    diff = float(np.max(np.abs(np.asarray(got, np.float64) - np.asarray(out, np.float64))))
    return "yes" if diff <= 1e-4 else f"differs ({diff:.0e})"


def row_text(name: str, provider: str, cells: dict[str, str], formats: Sequence[str]) -> str:
    return "| " + " | ".join([name, provider, *(cells[f] for f in formats)]) + " |"


def table(root: Path, formats: Sequence[str] = FORMATS, names: Sequence[str] | None = None) -> str:
    """The support table's markdown (every registered layer, or ``names``)."""
    import tensorweave as tw

    registry = tw.registry("layers")
    cases = cases_by_layer(root)
    lines = [
        "| layer | pack | " + " | ".join(formats) + " |",
        "|---|---|" + "---|" * len(formats),
    ]
    for name in names if names is not None else registry.names():
        provider = registry.info(name).distribution
        print(f"  {name}", file=sys.stderr, flush=True)
        case = cases.get(name)
        cells = {
            f: support(case, f) if case is not None else "untested (no conformance case)"
            for f in formats
        }
        lines.append(row_text(name, provider, cells, formats))
    return "\n".join(lines)


def rows_of(doc: str) -> dict[str, list[str]]:
    """The table's rows in ``doc`` (between the markers), by layer name: their cells."""
    part = doc.split(START, 1)[-1].split(END, 1)[0]
    rows: dict[str, list[str]] = {}
    for line in part.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) > 2 and cells[0] not in ("layer", "") and not cells[0].startswith("---"):
            rows[cells[0]] = cells[1:]
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tensorweave_deploy.exporters.support")
    parser.add_argument("--write", type=Path, help="the doc whose table to rewrite")
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="the repository")
    parser.add_argument(
        "--missing",
        action="store_true",
        help="export only the layers the doc's table lacks, keeping the rows it has",
    )
    args = parser.parse_args(argv)
    if args.missing and args.write is not None and START in args.write.read_text():
        import tensorweave as tw

        kept = rows_of(args.write.read_text())
        names = tw.registry("layers").names()
        fresh = rows_of(
            f"{START}\n{table(args.root, names=[n for n in names if n not in kept])}\n{END}"
        )
        rows = {**kept, **fresh}
        text = "\n".join(
            [
                "| layer | pack | " + " | ".join(FORMATS) + " |",
                "|---|---|" + "---|" * len(FORMATS),
                *("| " + " | ".join([n, *rows[n]]) + " |" for n in names if n in rows),
            ]
        )
    else:
        text = table(args.root)
    if args.write is None:
        print(text)
        return 0
    doc = args.write.read_text()
    if START not in doc or END not in doc:
        doc = doc.rstrip() + f"\n\n{START}\n{END}\n"
    head, rest = doc.split(START, 1)
    args.write.write_text(f"{head}{START}\n{text}\n{END}{rest.split(END, 1)[1]}")
    print(f"wrote the table of {text.count(chr(10)) - 1} layers into {args.write}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
