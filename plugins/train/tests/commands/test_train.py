"""``tensorweave train`` and ``resume`` in process: the hook adds them, help lists the selected
components, the summary, progress lines, exit codes and messages for every user mistake."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from twtrain_helpers import copied, run_cli

import tensorweave as tw
import tensorweave_train as twt
from tensorweave.cli import main as cli_main

pytestmark = pytest.mark.usefixtures("cli")

DIGITS = twt.config_path(None).read_text()
TINY = ["--data.limit=200", "--train.epochs=1", "--train.batch_size=64", "--dims.hidden=8"]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run ``tensorweave train --quiet`` made."""
    from tensorweave_train import commands

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
        tw.plugins.unblock("tensorweave-conflict-demo")
    return where


def test_commands_are_added_by_the_hook(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli_main(["--help"])
    out = capsys.readouterr().out
    for name in ("train", "evaluate", "predict", "resume", "plot", "draw"):
        assert name in out


def test_train_help_shows_the_selected_components(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "train", "--help")
    assert code == 0
    assert "--optimizer.beta_1" in out and "--optimizer.momentum" not in out
    assert "--model.nodes.h1.n_units" in out and "= 128" in out
    assert "--train.epochs                       int                    = 20" in out
    assert "self" not in out
    assert "exit codes:" in out
    code, out, _ = run_cli(capsys, "train", "digits", "--optimizer.@optimizers=SGD.v1", "--help")
    assert code == 0
    assert "--optimizer.momentum" in out and "--optimizer.beta_1" not in out
    assert "SGD.v1 (optimizers, from tensorweave-train" in out


def test_train_prints_summary_and_writes_run(
    run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["epochs"] == 1 and "accuracy" in summary["valid"]
    code, out, _ = run_cli(capsys, "evaluate", str(run_dir))
    assert code == 0
    metrics = json.loads(out)
    assert metrics["accuracy"] == pytest.approx(summary["valid"]["accuracy"], abs=1e-6)


def test_train_output_has_progress_lines_and_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(capsys, "train", *TINY, "--run-dir", str(tmp_path / "r"))
    assert code == 0, err
    assert "Epoch 1/1" in out and "done in" in out and "validation: loss" in out
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
        (
            ["draw", '--model.nodes.h9.inputs=["h1"]'],
            4,
            "no node 'h9' in 'model.nodes' to override",
        ),
        (["train", "--workers", "a:1,b:2", "--task", "0"], 2, "but the strategy is 'default'"),
        (["train", "--train.strategy=multi_worker", "--task", "0"], 2, "needs both --workers"),
        (["train", "--train.strategy=multi_worker"], 2, "TF_CONFIG is not set. Fix:"),
        (
            ["train", "--train.strategy=multi_worker", "--workers", "a:1,a:1", "--task", "0"],
            2,
            "twice",
        ),
        (
            ["train", "--train.strategy=multi_worker", "--workers", "a:1", "--task", "1"],
            2,
            "--task 1",
        ),
        (["train", "--train.strategy=mirroed"], 4, "train.strategy: expected one of 'default'"),
    ],
)
def test_user_mistakes_give_messages_and_exit_codes(
    capsys: pytest.CaptureFixture[str], argv: list[str], code: int, message: str
) -> None:
    got, _out, err = run_cli(capsys, *argv)
    assert got == code, err
    assert message in err
    assert "Traceback" not in err


def test_resume_from_run_dir(run_dir: Path, tmp_path: Path, capsys) -> None:
    copy = copied(run_dir, tmp_path / "copy")
    code, _out, err = run_cli(capsys, "resume", str(copy), "--train.epochs=2", "--quiet")
    assert code == 0, err
    assert json.loads((copy / "summary.json").read_text())["epochs"] == 2


def test_a_cluster_run_is_continued_by_its_workers_not_resume(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = copied(run_dir, tmp_path / "copy")
    config = json.loads((copy / "config.json").read_text())
    config["train"]["strategy"] = "multi_worker"
    (copy / "config.json").write_text(json.dumps(config))
    code, _out, err = run_cli(capsys, "resume", str(copy))
    assert code == 2 and "is a multi_worker run" in err and "Fix:" in err


# -- configs validated before anything is written ----------------------------------------
BAD_FILES = {
    "trian": (
        DIGITS.replace("[train]", "[trian]"),
        "trian: unknown section. Did you mean [train]?",
    ),
    "optimiser": (
        DIGITS.replace("[optimizer]", "[optimiser]"),
        "optimiser: unknown section. Did you mean [optimizer]?",
    ),
    "data-string": (
        'data = "digits.v1"\n'
        + DIGITS.replace('[data]\n"@datasets" = "digits.v1"\nvalid_fraction = 0.2\nseed = 0\n', ""),
        'data: expected a dataset table such as {"@datasets" = "digits.v1"}',
    ),
}


BAD_OVERRIDES = {
    "zero-epochs": ("--train.epochs=0", "train.epochs: must be a positive integer, got 0"),
    "negative-batch": ("--train.batch_size=-4", "train.batch_size: must be a positive integer"),
    "nan-lr": ("--optimizer.learning_rate=nan", "optimizer.learning_rate: must be a positive"),
    "negative-lr": ("--optimizer.learning_rate=-0.1", "optimizer.learning_rate: must be a pos"),
    "escaping-name": ("--run.name=../../escaped", "run.name: '../../escaped' is not a plain"),
    "typo-setting": ("--train.epoch=3", "train.epoch: unknown setting; Did you mean 'epochs'?"),
}


@pytest.mark.parametrize("case", [*BAD_FILES, *BAD_OVERRIDES])
def test_bad_configs_exit_4_with_the_path_and_leave_nothing(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["train", *TINY]
    if case in BAD_FILES:
        text, message = BAD_FILES[case]
        (tmp_path / "job.toml").write_text(text)
        argv = ["train", "job.toml", *(TINY[1:] if case == "data-string" else TINY)]
    else:
        override, message = BAD_OVERRIDES[case]
        argv.append(override)
    code, _, err = run_cli(capsys, *argv)
    assert code == 4, err
    assert message in err
    assert sorted(os.listdir(tmp_path)) == (["job.toml"] if case in BAD_FILES else [])
    assert not (tmp_path.parent / "escaped").exists()
