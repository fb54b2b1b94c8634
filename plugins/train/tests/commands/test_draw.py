"""``tensorweave draw CONFIG``: the layer graph of the model a config makes, as SVG."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from twtrain_helpers import run_cli

pytestmark = pytest.mark.usefixtures("cli")


def test_draw_config_graph(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_path = tmp_path / "graph.svg"
    code, _out, err = run_cli(capsys, "draw", "digits", "-o", str(out_path))
    assert code == 0, err
    root = ET.fromstring(out_path.read_text())
    nodes = {
        g.get("data-name"): g.get("data-type")
        for g in root.iter("{http://www.w3.org/2000/svg}g")
        if g.get("class") == "node"
    }
    assert nodes["x"] == "Input" and nodes["h1"] == "FC" and nodes["logits"] == "Linear"
    assert {"loss", "accuracy", "probs", "y"} <= set(nodes)
