"""The job's promises (issue 14): configs validated before anything is written, resumes
that cannot break a run, checkpoints where the docs say, one log row per epoch, Ctrl-C that
saves, predict inputs refused clearly. Failure paths go through the CLI (``cli_main``
in-process for most, the real ``tensorweave`` command in subprocesses for some)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import warnings
from pathlib import Path

import pytest
from test_rundir import TENSORWEAVE, cli_env

import tensorweave as tw
import tensorweave_train as twt
from tensorweave.cli import main as cli_main
from tensorweave_train import commands, training
from tensorweave_train import job as jobs

TINY = ["--data.limit=200", "--train.epochs=2", "--train.batch_size=64", "--dims.hidden=8"]
DIGITS = jobs.config_path(None).read_text()


@pytest.fixture(autouse=True)
def _cli():
    tw.plugins.block("tensorweave-conflict-demo")
    mine = [p for p in tw.plugins.manager.get_plugins() if getattr(p, "COMMANDS", None)]
    if not mine:
        tw.plugins.register(commands, name="test:commands-safety")
    yield
    if not mine:
        tw.plugins.unregister(commands)
    tw.plugins.unblock("tensorweave-conflict-demo")


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tw.plugins.block("tensorweave-conflict-demo")
    run = tmp_path_factory.mktemp("safety") / "run"
    jobs.train(jobs.load_config(None, TINY), run_dir=run, out=None)
    return run


def files_of(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli_main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- run directories --------------------------------------------------------------------
def test_checkpoints_are_in_run_checkpoints(trained: Path) -> None:
    found = sorted(p.name for p in (trained / "checkpoints").glob("ckpt-*"))
    assert found and not (trained / "checkpoints" / "checkpoints").exists()
    assert not (trained / ".lock").exists()


def test_train_refuses_an_existing_run_unless_overwrite(
    trained: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(trained, copy)
    before = files_of(copy)
    code, _, err = run_cli(capsys, "train", *TINY, "--run-dir", str(copy), "--quiet")
    assert code == 2 and "already holds a run" in err and "--overwrite" in err
    assert files_of(copy) == before
    code, _, err = run_cli(
        capsys, "train", *TINY, "--train.epochs=1", "--run-dir", str(copy), "--overwrite"
    )
    assert code == 0, err
    assert len((copy / "log.csv").read_text().splitlines()) == 2  # only the new run's row


def test_resume_refuses_an_architecture_change_and_writes_nothing(
    trained: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(trained, copy)
    before = files_of(copy)
    code, _, err = run_cli(capsys, "resume", str(copy), "--model.nodes.h1.n_units=13")
    assert code == 4, err
    assert "model.nodes.h1.n_units: this override changes the model's variables" in err
    assert files_of(copy) == before  # config.json untouched: evaluate still works
    assert set(jobs.evaluate(copy)) == {"loss", "accuracy"}


def test_damaged_manifest_falls_back_and_the_log_keeps_one_row_per_epoch(
    trained: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(trained, copy)
    newest = twt.Checkpointer(copy).checkpoints()[-1]
    (newest / "MANIFEST.json").write_text("[]")  # valid JSON, not a manifest
    with pytest.warns(twt.CorruptCheckpointWarning, match="damaged MANIFEST"):
        summary = jobs.resume(copy, ["--train.epochs=3"], out=None)
    assert summary["epochs"] == 3
    rows = (copy / "log.csv").read_text().splitlines()[1:]
    assert [float(r.split(",")[0]) for r in rows] == [1.0, 2.0, 3.0]  # numbered from 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert twt.Checkpointer(copy).latest() is not None  # the new checkpoints are fine


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


def test_bad_configs_through_the_real_command(tmp_path: Path) -> None:
    """The real ``tensorweave`` command (two processes at once): exit code, message,
    nothing left in the working directory."""
    (tmp_path / "job.toml").write_text(BAD_FILES["trian"][0])
    cases = [
        (["train", "job.toml", "--train.batch_size=0"], 4, "train.batch_size: must be a pos"),
        (["evaluate", "no/such/run"], 2, "no/such/run does not exist"),
    ]
    procs = [
        subprocess.Popen(
            [TENSORWEAVE, *argv],
            cwd=tmp_path,
            env=cli_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for argv, _, _ in cases
    ]
    for (argv, code, message), proc in zip(cases, procs):
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == code, (argv, err[-1500:])
        assert message in err and "Traceback" not in err
        if argv[0] == "train":
            assert "trian: unknown section. Did you mean [train]?" in err  # all at once
    assert sorted(os.listdir(tmp_path)) == ["job.toml"]


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
        if line.startswith("epoch 1/1000"):
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
    summary = jobs.resume(run, [f"--train.epochs={state['epoch'] + 1}"], out=None)
    epochs = [float(r.split(",")[0]) for r in (run / "log.csv").read_text().splitlines()[1:]]
    assert epochs == [float(e) for e in range(1, summary["epochs"] + 1)]  # each epoch once


# -- predict ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def chars_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tw.plugins.block("tensorweave-conflict-demo")
    run = tmp_path_factory.mktemp("chars") / "run"
    cfg = jobs.load_config(
        "chars",
        [
            "--data.limit=3000",
            "--data.seq_len=8",
            "--data.workers=0",
            "--model.nodes.embed.n_units=4",
            "--model.nodes.lstm.n_units=4",
            "--train.epochs=1",
            "--train.batch_size=64",
        ],
    )
    jobs.train(cfg, run_dir=run, out=None)
    return run


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "the input text is empty"),
        ("d\u00e9f \u4e2d", "2 character(s) outside the model's vocabulary: '\u00e9', '\u4e2d'"),
    ],
)
def test_predict_refuses_empty_text_and_unknown_characters(
    chars_run: Path, text: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(capsys, "predict", str(chars_run), "--text", text, "--generate", "2")
    assert code == 2 and message in err and "Traceback" not in err, err
    code, out, err = run_cli(capsys, "predict", str(chars_run), "--text", "def ", "--generate", "2")
    assert code == 0 and out.startswith("def "), err


def test_predict_text_on_a_digits_model_is_a_clear_usage_error(
    trained: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(capsys, "predict", str(trained), "--text", "hello")
    assert code == 2 and "this model does not take text" in err and "--input" in err


def test_nan_in_training_data_stops_the_cli_job(tmp_path: Path) -> None:
    from tensorweave_train.trainer import NonFiniteWarning

    cfg = jobs.load_config(None, TINY)
    job = jobs.build_job(cfg)
    job.data.train["x"][3, 5] = float("nan")
    with pytest.raises(tw.TensorweaveError, match=r"'x' has NaN or inf values \(first at ex"):
        training._check_data(job)
    # a NaN that appears while training (here: weights) stops the job at the epoch's end
    job.data.train["x"][3, 5] = 0.0
    job.model.build()
    weight = job.model.trainable_variables[0]
    weight.assign(weight * float("nan"))
    with (
        pytest.raises(tw.TensorweaveError, match=r"hold NaN/inf at epoch 1 \(step 3\)"),
        pytest.warns(NonFiniteWarning, match=r"after epoch 1 \(step 3\)"),
    ):
        training._fit(job, tmp_path, progress=False, out=None)
    assert len((tmp_path / "log.csv").read_text().splitlines()) == 2  # stopped after epoch 1


def test_run_name_stays_inside_the_runs_root_in_python(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    cfg = jobs.load_config(None, [*TINY, "--run.name=a/b"])
    with pytest.raises(tw.config.ConfigError, match=r"run\.name: 'a/b' is not a plain run"):
        jobs.train(cfg, out=None)
    assert os.listdir(tmp_path) == []


def test_a_run_from_an_uninstalled_pack_names_the_recorded_distribution(
    trained: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(trained, copy)
    filled = json.loads((copy / "config.json").read_text())
    node = filled["model"]["nodes"]["h1"]
    node["@layers"], node["@provider"] = "FancyDense.v2", "tensorweave-fancy 0.3.1"
    (copy / "config.json").write_text(json.dumps(filled))
    code, _, err = run_cli(capsys, "evaluate", str(copy))
    assert code == 3, err
    assert "model.nodes.h1.@layers: unknown layers component 'FancyDense.v2'" in err
    assert "tensorweave-fancy 0.3.1" in err and "pip install 'tensorweave-fancy==0.3.1'" in err


def test_resume_of_a_run_in_use_names_the_pid_and_writes_nothing(
    trained: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from test_rundir import _sleeper

    copy = tmp_path / "copy"
    shutil.copytree(trained, copy)
    holder = _sleeper(copy / ".lock")
    try:
        before = files_of(copy)
        code, _, err = run_cli(capsys, "resume", str(copy), "--train.epochs=3")
        assert code == 2 and f"run directory {copy} is in use by pid {holder.pid}" in err, err
        assert files_of(copy) == before
    finally:
        holder.kill()
        holder.wait()
