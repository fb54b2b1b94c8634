"""``tensorweave plot RUN``: a run's curves, one panel per quantity, as SVG or PNG."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from twtrain_helpers import run_cli

pytestmark = pytest.mark.usefixtures("cli")


@pytest.fixture
def run_dir(digits_run: Path) -> Path:
    return digits_run


def test_plot_svg_and_png(run_dir: Path, tmp_path: Path, capsys) -> None:
    svg = tmp_path / "curves.svg"
    code, _, _ = run_cli(capsys, "plot", str(run_dir), "-o", str(svg))
    assert code == 0
    root = ET.fromstring(svg.read_text())
    names = {g.get("data-name") for g in root.iter("{http://www.w3.org/2000/svg}g")}
    assert {"loss", "val_loss", "val_accuracy"} <= names
    png = tmp_path / "curves.png"
    code, _out, err = run_cli(capsys, "plot", str(run_dir), "-o", str(png))
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert code == 1 and "need matplotlib" in err
    else:
        assert code == 0 and png.read_bytes()[:4] == b"\x89PNG"
