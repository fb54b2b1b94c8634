"""The gallery's notebooks (``examples/notebooks``) run green in a real Jupyter kernel
(nbclient + ipykernel), and show what a notebook user sees: tqdm's progress widget, the
History as an HTML table, ``compare_runs`` as HTML tables and the curves."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")  # in requirements-dev: CI runs these
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = Path(__file__).resolve().parents[2] / "examples" / "notebooks"

pytestmark = pytest.mark.slow


def executed(name: str, where: Path, monkeypatch: pytest.MonkeyPatch):
    """The notebook ``name`` run top to bottom in a fresh kernel, working in ``where``."""
    for key, value in {
        "TF_CPP_MIN_LOG_LEVEL": "3",
        "TENSORWEAVE_BLOCK": "tensorweave-conflict-demo",  # a parallel test's second Linear.v1
        "TENSORWEAVE_RUNS": str(where / "runs"),
        "TENSORWEAVE_STORE": f"sqlite:///{where}/default-store.db",
        "TMPDIR": str(where),
    }.items():
        monkeypatch.setenv(key, value)
    notebook = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    started = time.monotonic()
    nbclient.NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(where)}}
    ).execute()
    print(f"{name}: {time.monotonic() - started:.1f}s")
    return notebook


def outputs(notebook, mime: str) -> list[str]:
    found = []
    for cell in notebook.cells:
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                raise AssertionError(f"{out['ename']}: {out['evalue']}")
            if mime == "stream" and out.get("output_type") == "stream":
                found.append(out["text"])
            elif mime in out.get("data", {}):
                found.append(str(out["data"][mime]))
    return found


def test_the_tour_notebook(tmp_path, monkeypatch):
    notebook = executed("tour", tmp_path, monkeypatch)
    widgets = outputs(notebook, "application/vnd.jupyter.widget-view+json")
    assert len(widgets) == 5  # one tqdm notebook bar per epoch, not text lines
    assert not any("Epoch 1/5 - " in s for s in outputs(notebook, "stream"))
    [history] = [h for h in outputs(notebook, "text/html") if "val_loss" in h]
    assert history.count("<tr>") == 6 and "<svg" in history  # 5 epochs + the header; curves
    [accuracy] = [s for s in outputs(notebook, "stream") if "validation accuracy" in s]
    assert float(accuracy.split(": ")[1]) > 0.5  # it learned


def test_the_compare_runs_notebook(tmp_path, monkeypatch):
    notebook = executed("compare_runs", tmp_path, monkeypatch)
    [html] = [h for h in outputs(notebook, "text/html") if "config differences" in h]
    assert "dims.hidden" in html and "hidden-16" in html and "hidden-64" in html
    assert "val_accuracy" in html and html.count("<svg") == 1  # the curves, one figure
    [text] = [s for s in outputs(notebook, "stream") if "config differences:" in s]
    assert "run 1 (hidden-16)" in text and "run 2 (hidden-64)" in text
    runs = list((tmp_path / "tensorweave-notebook-").parent.glob("tensorweave-notebook-*"))
    assert len(runs) == 1 and (runs[0] / "store.db").is_file()  # its own store, in TMPDIR
