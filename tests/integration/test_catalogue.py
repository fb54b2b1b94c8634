"""``docs/catalogue.md`` is what ``tensorweave catalogue`` makes of the first-party packs now."""

from __future__ import annotations

import tomllib
from pathlib import Path

from tensorweave.cli.catalogue import command_line, render

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "catalogue.md"
FIRST_PARTY = sorted(
    tomllib.loads(p.read_text())["project"]["name"]
    for p in (ROOT / "plugins").glob("*/pyproject.toml")
)


def test_the_catalogue_is_current():
    command = command_line(FIRST_PARTY, "docs/catalogue.md")
    assert DOC.read_text(encoding="utf-8") == render(FIRST_PARTY), (
        f"docs/catalogue.md is out of date. Fix: run `{command}` at the repository root."
    )


def test_the_catalogue_lists_every_first_party_component_by_kind():
    import tensorweave as tw

    text = DOC.read_text(encoding="utf-8")
    for kind, reg in tw.kinds().items():
        for info in reg.infos():
            if info.distribution in FIRST_PARTY:
                assert f"## {kind}" in text and f"| `{info.name}` |" in text
