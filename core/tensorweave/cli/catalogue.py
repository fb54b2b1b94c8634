"""``tensorweave catalogue``: every registered component by kind, as a Markdown document.

Generated from the registries (names from metadata, summaries from each component's
docstring read from source, Keras counterparts and other known names from the packs'
counterpart tables), so it imports no TensorFlow and is always what is installed. The
repository's ``docs/catalogue.md`` is this command's output for the first-party packs; the
file's header says the command that regenerates it, and a test keeps it current.

>>> print(render(["no-such-dist"]).splitlines()[0])
# Component catalogue
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from tensorweave.registries import ComponentInfo, kinds
from tensorweave.registries.counterparts import counterparts, counterparts_of, differences_table
from tensorweave.registries.discovery import catalog, normalize
from tensorweave.registries.sources import kind_doc, signature_and_doc

__all__ = ["add_command", "run", "render", "command_line"]


def add_command(subparsers: Any) -> None:
    """Add ``catalogue [DIST ...] [-o FILE]``."""
    cmd = subparsers.add_parser("catalogue", help="every registered component by kind, as Markdown")
    cmd.add_argument(
        "distributions",
        nargs="*",
        metavar="DIST",
        help="only these distributions (default: every installed one)",
    )
    cmd.add_argument("-o", "--output", help="write to this file instead of printing")
    cmd.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print (or write) the catalogue."""
    text = render(args.distributions)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"wrote {args.output}")
    else:
        print(text, end="")
    return 0


def command_line(distributions: list[str], output: str | None = None) -> str:
    """The command that makes this catalogue (written in its header)."""
    parts = ["tensorweave catalogue", *sorted(normalize(d) for d in distributions)]
    return " ".join(parts + ([f"-o {output}"] if output else []))


def render(distributions: list[str] | None = None, *, output: str = "docs/catalogue.md") -> str:
    """The catalogue of ``distributions`` (all installed when empty) as Markdown."""
    wanted = {normalize(d) for d in distributions or []}
    shown = sorted(wanted) if wanted else sorted(catalog.distributions())
    lines = [
        "# Component catalogue",
        "",
        "Every component registered by "
        + ", ".join(f"`{d}`" for d in shown)
        + ', by kind. Use one by its name (`tw.layers["Linear.v1"]`, `"@layers" = '
        '"Linear.v1"` in a config); `tensorweave describe NAME` shows its parameters.',
        "",
        "Generated from the registries, not written by hand; regenerate with:",
        "",
        "```bash",
        command_line(sorted(wanted), output) if wanted else f"tensorweave catalogue -o {output}",
        "```",
        "",
    ]
    for kind, reg in kinds().items():
        infos = [i for i in reg.infos() if not wanted or i.distribution in wanted]
        if not infos:
            continue
        lines += [f"## {kind}", ""]
        doc = next((kind_doc(r.value) for r in _declarations(kind)), "")
        if doc:
            lines += [doc[:1].upper() + doc[1:] + ".", ""]
        lines += [
            "| name | what it does | Keras counterpart (tested) | distribution |",
            "| --- | --- | --- | --- |",
        ]
        lines += [_row(kind, info) for info in sorted(infos, key=lambda i: i.name.lower())]
        lines.append("")
    rows = [row for dist, row in counterparts() if not wanted or dist in wanted]
    lines += [
        "## Deliberate differences from Keras",
        "",
        "A component with a Keras counterpart has that counterpart's defaults, except the "
        "options below (from the packs' counterpart tables; `tensorweave describe NAME` shows "
        "a component's). An option Keras requires and tensorweave gives a default "
        "(`kernel_size=3`) is not a difference: a Keras program always passes it.",
        "",
        differences_table(rows),
        "",
    ]
    return "\n".join(lines)


def _declarations(kind: str) -> list[Any]:
    return [r for r in catalog.entry_points("tensorweave.kinds") if r.name == kind]


def _row(kind: str, info: ComponentInfo) -> str:
    signature, doc = signature_and_doc(info.target) or ("", "")
    summary = _summary(doc) or (f"`{signature}`" if " = " in signature else "")
    rows = counterparts_of(kind, info.name)
    keras = ", ".join(
        dict.fromkeys(
            f"`{r.keras}`" + (f" ({r.usage})" if r.usage else "") for r in rows if r.keras
        )
    )
    also = [n for r in rows for n in r.also]
    if also:
        summary += " Also known as " + ", ".join(f"`{n}`" for n in dict.fromkeys(also)) + "."
    return f"| `{info.name}` | {_cell(summary)} | {keras} | {info.distribution} |"


def _summary(doc: str) -> str:
    """The first sentence of a docstring (its first paragraph, one line)."""
    first = " ".join(doc.strip().split("\n\n", 1)[0].split())
    end = first.find(". ")
    return first if end < 0 else first[: end + 1]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").strip()
