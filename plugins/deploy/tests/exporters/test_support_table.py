"""docs/deploy.md's support table is current: a row for every registered layer, and a sample
of rows re-exported now gives the same cells (the full table: the generator's command)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tensorweave_deploy.exporters.support import COMMAND, FORMATS, cases_by_layer, rows_of, support

import tensorweave as tw

ROOT = Path(__file__).parents[4]
DOC = ROOT / "docs" / "deploy.md"
STALE = f"docs/deploy.md's support table is stale. Fix: regenerate it: {COMMAND}"
SAMPLE = {  # layer: the test file holding its first conformance case
    "Linear.v1": ROOT / "plugins/layers/tests/dense/test_conformance_dense.py",
    "DepthwiseConv2D.v1": ROOT / "plugins/layers/tests/conv/test_conformance_convolution.py",
}


def test_every_registered_layer_has_a_row() -> None:
    rows = rows_of(DOC.read_text())
    missing = sorted(set(tw.registry("layers").names()) - set(rows))
    assert not missing, f"{STALE} (no row for {', '.join(missing)})"
    assert all(len(cells) == 1 + len(FORMATS) for cells in rows.values()), STALE


@pytest.mark.slow
def test_a_sample_of_rows_exports_as_the_table_says() -> None:
    rows = rows_of(DOC.read_text())
    cases = cases_by_layer(ROOT, sorted(set(SAMPLE.values())))
    for name in SAMPLE:
        now = [tw.registry("layers").info(name).distribution] + [
            support(cases[name], f) for f in FORMATS
        ]
        assert rows[name] == now, f"{STALE} ({name}: the table says {rows[name]}, now {now})"
