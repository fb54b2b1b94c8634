"""The job's commands through the real ``tensorweave`` CLI: help, exit codes, files."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import tensorweave as tw
from tensorweave.cli import main as cli_main
from tensorweave_train import commands

TINY = ["--data.limit=200", "--train.epochs=1", "--train.batch_size=64", "--dims.hidden=8"]


@pytest.fixture(autouse=True)
def _cli():
    """Register the commands if the entry point is not installed yet; block the conflict
    demo that tests/integration installs for a moment (it offers a second Linear.v1)."""
    tw.plugins.block("tensorweave-conflict-demo")
    mine = [p for p in tw.plugins.manager.get_plugins() if getattr(p, "COMMANDS", None)]
    if not mine:
        tw.plugins.register(commands, name="test:commands")
    yield
    if not mine:
        tw.plugins.unregister(commands)
    tw.plugins.unblock("tensorweave-conflict-demo")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli_main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("cli") / "run"
    tw.plugins.block("tensorweave-conflict-demo")
    registered = not [p for p in tw.plugins.manager.get_plugins() if getattr(p, "COMMANDS", None)]
    if registered:
        tw.plugins.register(commands, name="test:commands-module")
    try:
        assert cli_main(["train", *TINY, "--run-dir", str(where), "--quiet"]) == 0
    finally:
        if registered:
            tw.plugins.unregister(commands)
    return where


def test_commands_are_added_by_the_hook(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli_main(["--help"])
    out = capsys.readouterr().out
    for name in ("train", "evaluate", "predict", "resume", "plot", "draw"):
        assert name in out


def test_train_help_shows_the_selected_components(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "train", "--help")
    assert code == 0
    assert "--optimizer.beta_1" in out and "--optimizer.momentum" not in out
    assert "--model.nodes.h1.n_units" in out and "= 128" in out
    assert "--train.epochs                       int                    = 20" in out
    assert "self" not in out
    assert "exit codes:" in out
    code, out, _ = run(capsys, "train", "digits", "--optimizer.@optimizers=SGD.v1", "--help")
    assert code == 0
    assert "--optimizer.momentum" in out and "--optimizer.beta_1" not in out
    assert "SGD.v1 (optimizers, from tensorweave-train" in out


def test_train_prints_summary_and_writes_run(
    run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["epochs"] == 1 and "accuracy" in summary["valid"]
    code, out, _ = run(capsys, "evaluate", str(run_dir))
    assert code == 0
    metrics = json.loads(out)
    assert metrics["accuracy"] == pytest.approx(summary["valid"]["accuracy"], abs=1e-6)


def test_train_output_has_progress_lines_and_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "train", *TINY, "--run-dir", str(tmp_path / "r"))
    assert code == 0, err
    assert "epoch 1/1" in out and "done in" in out and "validation: loss" in out
    assert f"tensorweave evaluate {tmp_path / 'r'}" in out


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["train", "--model.nodes.h1.n_units=abc"], 4, "model.nodes.h1.n_units: expected int"),
        (["train", "--train.epoks=3", "--data.seed=x"], 4, "train.epoks: unknown setting"),
        (["train", "--optimizer.@optimizers=Adamm.v1"], 3, "close matches: Adam.v1"),
        (["train", "missing.toml"], 2, "no config file"),
        (["train", "--bogus"], 2, "unrecognized arguments: --bogus"),
        (["train", "--train.epochs"], 2, "needs a value"),
        (["evaluate"], 2, "give the RUN_DIR"),
        (["evaluate", "/nonexistent/run"], 2, "/nonexistent/run does not exist"),
        (["resume", "/nonexistent/run"], 2, "/nonexistent/run does not exist"),
        (["predict", "/nonexistent/run", "--text", "x"], 2, "does not exist"),
        (["draw", '--model.nodes.h9.inputs=["h1"]'], 4, "a node needs"),
    ],
)
def test_user_mistakes_give_messages_and_exit_codes(
    capsys: pytest.CaptureFixture[str], argv: list[str], code: int, message: str
) -> None:
    got, _out, err = run(capsys, *argv)
    assert got == code, err
    assert message in err
    assert "Traceback" not in err


def test_predict_from_npy(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sklearn.datasets import load_digits

    path = tmp_path / "x.npy"
    np.save(path, load_digits().data[:3])
    code, out, err = run(capsys, "predict", str(run_dir), "--input", str(path))
    assert code == 0, err
    ids = json.loads(out)
    assert len(ids) == 3 and all(0 <= i < 10 for i in ids)


def test_resume_from_run_dir(run_dir: Path, tmp_path: Path, capsys) -> None:
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(run_dir, copy)
    code, _out, err = run(capsys, "resume", str(copy), "--train.epochs=2", "--quiet")
    assert code == 0, err
    assert json.loads((copy / "summary.json").read_text())["epochs"] == 2


def test_plot_svg_and_png(run_dir: Path, tmp_path: Path, capsys) -> None:
    svg = tmp_path / "curves.svg"
    code, _, _ = run(capsys, "plot", str(run_dir), "-o", str(svg))
    assert code == 0
    root = ET.fromstring(svg.read_text())
    names = {g.get("data-name") for g in root.iter("{http://www.w3.org/2000/svg}g")}
    assert {"loss", "val_loss", "val_accuracy"} <= names
    png = tmp_path / "curves.png"
    code, _out, err = run(capsys, "plot", str(run_dir), "-o", str(png))
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert code == 1 and "need matplotlib" in err
    else:
        assert code == 0 and png.read_bytes()[:4] == b"\x89PNG"


def test_draw_config_graph(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_path = tmp_path / "graph.svg"
    code, _out, err = run(capsys, "draw", "digits", "-o", str(out_path))
    assert code == 0, err
    root = ET.fromstring(out_path.read_text())
    nodes = {
        g.get("data-name"): g.get("data-type")
        for g in root.iter("{http://www.w3.org/2000/svg}g")
        if g.get("class") == "node"
    }
    assert nodes["x"] == "Input" and nodes["h1"] == "FC" and nodes["logits"] == "Linear"
    assert {"loss", "accuracy", "probs", "y"} <= set(nodes)
