"""Training a job into a new run directory: what it writes, and the promises that keep a
run safe (nothing written before the config validated, no silent reuse, Ctrl-C saves)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import pytest
from twtrain_helpers import (
    TENSORWEAVE,
    TINY,
    cli_env,
    copied,
    files_of,
    run_cli,
)

import tensorweave as tw
import tensorweave_train as twt

pytestmark = pytest.mark.usefixtures("cli")


@pytest.fixture
def trained(digits_run: Path) -> Path:
    return digits_run


@pytest.fixture
def copy(trained: Path, tmp_path: Path) -> Path:
    return copied(trained, tmp_path / "copy")


def test_run_directory_contents(trained: Path) -> None:
    run, summary = trained, json.loads((trained / "summary.json").read_text())
    for name in ("config.json", "source.toml", "log.csv", "summary.json", "processors.json"):
        assert (run / name).is_file(), name
    assert any((run / "checkpoints").iterdir())
    filled = json.loads((run / "config.json").read_text())
    assert filled["@versions"]["tensorweave"] == tw.__version__
    assert "tensorweave-train" in filled["@versions"]["plugins"]
    assert filled["optimizer"]["@provider"].startswith("tensorweave-train ")
    assert filled["optimizer"]["beta_1"] == 0.9  # defaults written out
    assert filled["model"]["nodes"]["h1"]["@provider"].startswith("tensorweave-layers")
    assert filled["data"]["@provider"].startswith("tensorweave-data")
    assert summary["epochs"] == 2 and summary["train_examples"] == 160
    assert set(summary["valid"]) == {"loss", "accuracy"}
    rows = (run / "log.csv").read_text().splitlines()
    assert rows[0].startswith("epoch,step,loss") and len(rows) == 3


@pytest.mark.slow
def test_char_model_trains_and_generates(tmp_path: Path) -> None:
    cfg = twt.load_config(
        "chars",
        [
            "--data.limit=12000",
            "--data.seq_len=16",
            "--model.nodes.lstm.n_units=16",
            "--train.epochs=1",
            "--train.batch_size=64",
        ],
    )
    summary = twt.train_job(cfg, run_dir=tmp_path / "chars", out=None)
    assert 1.0 < summary["valid"]["perplexity"] < 101.0
    text = twt.Run.open(tmp_path / "chars").predict("def ", generate=5)
    assert isinstance(text, str) and text.startswith("def ") and len(text) == 9


# -- run directories --------------------------------------------------------------------
def test_checkpoints_are_in_run_checkpoints(trained: Path) -> None:
    found = sorted(p.name for p in (trained / "checkpoints").glob("ckpt-*"))
    assert found and not (trained / "checkpoints" / "checkpoints").exists()
    assert not (trained / ".lock").exists()


def test_train_refuses_an_existing_run_unless_overwrite(
    copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = files_of(copy)
    code, _, err = run_cli(capsys, "train", *TINY, "--run-dir", str(copy), "--quiet")
    assert code == 2 and "already holds a run" in err and "--overwrite" in err
    assert files_of(copy) == before
    code, _, err = run_cli(
        capsys, "train", *TINY, "--train.epochs=1", "--run-dir", str(copy), "--overwrite"
    )
    assert code == 0, err
    assert len((copy / "log.csv").read_text().splitlines()) == 2  # only the new run's row


# -- Ctrl-C ------------------------------------------------------------------------------
@pytest.mark.slow
def test_ctrl_c_saves_a_checkpoint_and_prints_the_real_resume_command(tmp_path: Path) -> None:
    run = tmp_path / "run"
    argv = [
        TENSORWEAVE,
        "train",
        "--data.limit=300",
        "--train.epochs=1000",
        "--train.batch_size=8",
        "--dims.hidden=4",
        "--run-dir",
        str(run),
    ]
    proc = subprocess.Popen(
        argv, env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    for line in proc.stdout:  # wait for the first epoch: there is a run to interrupt
        if line.startswith("Epoch 1/1000"):
            break
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-2000:]
    assert f"resume with: tensorweave resume {run}" in err and "RUN_DIR" not in err
    step = int(err.split("saved a checkpoint at step ")[1].split()[0])
    ckpt = run / "checkpoints" / f"ckpt-{step:010d}"
    state = json.loads((ckpt / "state.json").read_text())
    assert state["step"] == step and step >= 30  # at least the first epoch's 30 steps
    assert not (run / ".lock").exists()
    summary = twt.resume_job(run, [f"--train.epochs={state['epoch'] + 1}"], out=None)
    epochs = [float(r.split(",")[0]) for r in (run / "log.csv").read_text().splitlines()[1:]]
    assert epochs == [float(e) for e in range(1, summary["epochs"] + 1)]  # each epoch once


def test_run_name_stays_inside_the_runs_root_in_python(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    cfg = twt.load_config(None, [*TINY, "--run.name=a/b"])
    with pytest.raises(tw.config.ConfigError, match=r"run\.name: 'a/b' is not a plain run"):
        twt.train_job(cfg, out=None)
    assert os.listdir(tmp_path) == []


def test_a_run_from_an_uninstalled_pack_names_the_recorded_distribution(
    copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    filled = json.loads((copy / "config.json").read_text())
    node = filled["model"]["nodes"]["h1"]
    node["@layers"], node["@provider"] = "FancyDense.v2", "tensorweave-fancy 0.3.1"
    (copy / "config.json").write_text(json.dumps(filled))
    code, _, err = run_cli(capsys, "evaluate", str(copy))
    assert code == 3, err
    assert "model.nodes.h1.@layers: unknown layers component 'FancyDense.v2'" in err
    assert "tensorweave-fancy 0.3.1" in err and "pip install 'tensorweave-fancy==0.3.1'" in err
