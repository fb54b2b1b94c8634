"""A config writes only inside its run (#33): the options typed ``OutputPath``
(``CSVLogger.v1``'s ``filename``, ``TensorBoard.v1``'s ``log_dir``, ``Checkpoint.v1``'s
``directory`` and any pack's) are relative to the run directory; an absolute one or one
that leaves it is refused at validation with its dotted path, unless the command line says
``--allow-paths-outside``. Python keeps its meaning (relative to the working directory)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from twtrain_helpers import TINY, regression_data, regression_model, tensorweave

import tensorweave as tw
import tensorweave.config as twc
import tensorweave_train as twt
from tensorweave_train.runs.job import in_run, validate_config
from tensorweave_train.runs.output_paths import output_path_problem


def _config(where: Path, callbacks: str) -> Path:
    """The built-in digits job with a top-level ``callbacks = [...]``."""
    where.write_text(f"callbacks = [{callbacks}]\n" + twt.config_path("digits").read_text())
    return where


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_a_config_cannot_write_outside_its_run(tmp_path: Path) -> None:
    """The attack: a config from someone else whose loggers name files anywhere."""
    victim = tmp_path / "home"
    victim.mkdir()
    (victim / ".bashrc").write_text("mine")
    config = _config(
        tmp_path / "hostile.toml",
        '{ "@callbacks" = "CSVLogger.v1", filename = "../outside/x.csv" }, '
        f'{{ "@callbacks" = "TensorBoard.v1", log_dir = "{victim}" }}, '
        '{ "@callbacks" = "Checkpoint.v1", directory = "a/../../../elsewhere", keep = 1 }',
    )
    run = tmp_path / "runs" / "r"
    proc = tensorweave("train", str(config), *TINY, "--quiet", "--run-dir", str(run), cwd=tmp_path)
    assert proc.returncode == 4, proc.stderr[-3000:]
    err = proc.stderr
    assert "callbacks[0].filename: '../outside/x.csv' leaves the run directory" in err
    assert f"callbacks[1].log_dir: '{victim}' is an absolute path" in err
    assert "callbacks[2].directory: 'a/../../../elsewhere' leaves the run directory" in err
    assert "--allow-paths-outside" in err
    assert _files(tmp_path) == ["home/.bashrc", "hostile.toml"]  # nothing written anywhere

    proc = tensorweave(
        "train",
        str(config),
        *TINY,
        "--quiet",
        "--run-dir",
        str(run),
        "--allow-paths-outside",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (run.parent / "outside" / "x.csv").is_file()  # relative to the run directory
    assert any(p.name.startswith("events.out") for p in victim.iterdir())
    assert (victim / ".bashrc").read_text() == "mine"


def test_config_paths_are_relative_to_the_run_directory(tmp_path: Path) -> None:
    config = _config(
        tmp_path / "job.toml",
        '{ "@callbacks" = "CSVLogger.v1", filename = "logs/extra.csv" }, '
        '{ "@callbacks" = "Checkpoint.v1", directory = "best", keep = 1 }',
    )
    run = tmp_path / "run"
    proc = tensorweave("train", str(config), *TINY, "--quiet", "--run-dir", str(run), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert len((run / "logs" / "extra.csv").read_text().splitlines()) == 3  # header, 2 epochs
    assert len(list((run / "best" / "checkpoints").glob("ckpt-*"))) == 1
    assert not (tmp_path / "logs").exists() and not (tmp_path / "best").exists()
    # the saved config keeps the relative path: a resumed run writes in its own directory
    assert '"filename": "logs/extra.csv"' in (run / "config.json").read_text()


def test_a_symbolic_link_out_of_the_run_is_refused(tmp_path: Path) -> None:
    run, elsewhere = tmp_path / "run", tmp_path / "elsewhere"
    run.mkdir()
    elsewhere.mkdir()
    (run / "logs").symlink_to(elsewhere)
    cfg = {"callbacks": [{"@callbacks": "CSVLogger.v1", "filename": "logs/x.csv"}]}
    plan = twc.validate(cfg)
    with pytest.raises(twc.ConfigError, match=r"callbacks\[0\]\.filename.*symbolic link"):
        in_run(plan, run)
    built = twc.build(in_run(plan, run, paths_outside=True), ["callbacks"])["callbacks"]
    assert built[0].path == str(run / "logs" / "x.csv")


def test_a_packs_own_output_path_gets_the_same_check(tmp_path: Path) -> None:
    class SaveSamples(twt.Callback):
        def __init__(self, folder: twt.OutputPath = "samples", every: int = 1) -> None:
            self.folder = folder

    tw.registry("callbacks").register("SaveSamplesTest.v1", SaveSamples)
    try:
        cfg = twt.load_config("digits", TINY)
        cfg["callbacks"] = [{"@callbacks": "SaveSamplesTest.v1", "folder": "/tmp/anywhere"}]
        with pytest.raises(twc.ConfigError, match=r"callbacks\[0\]\.folder: '/tmp/anywhere'"):
            validate_config(cfg)
        assert validate_config(cfg, paths_outside=True) is not None
    finally:
        tw.registry("callbacks").unregister("SaveSamplesTest.v1")


def test_a_config_cannot_allow_itself_to_write_outside() -> None:
    cfg = twt.load_config("digits", TINY)
    cfg["train"]["allow_paths_outside"] = True
    cfg["callbacks"] = [{"@callbacks": "CSVLogger.v1", "filename": "../x.csv"}]
    with pytest.raises(twc.ConfigError) as err:
        validate_config(cfg)
    problems = dict(err.value.errors)
    assert problems["train.allow_paths_outside"].startswith("unknown setting")
    assert "leaves the run directory" in problems["callbacks[0].filename"]


def test_python_paths_keep_their_meaning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    model = regression_model()
    logger = twt.CSVLogger("../py-log.csv")  # Python: relative to the working directory
    model.train(regression_data(), epochs=1, batch_size=16, callbacks=[logger], verbose=0)
    assert (tmp_path.parent / "py-log.csv").is_file()
    (tmp_path.parent / "py-log.csv").unlink()


_PARTS = st.sampled_from(["..", ".", "a", "b", "logs", "~", "", "x.csv", "..a", "a.."])


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(_PARTS, min_size=1, max_size=6), absolute=st.booleans())
def test_hostile_output_paths_never_leave_the_run(
    tmp_path_factory: pytest.TempPathFactory, parts: list[str], absolute: bool
) -> None:
    """Any path the validator accepts, joined to the run directory, stays inside it."""
    run = tmp_path_factory.getbasetemp() / "prop-run"
    run.mkdir(exist_ok=True)
    value = ("/" if absolute else "") + "/".join(parts)
    problem = output_path_problem(value, run)
    inside = os.path.realpath(os.path.join(run, value))
    stays = inside == str(run.resolve()) or inside.startswith(str(run.resolve()) + os.sep)
    if problem is None:
        assert stays and not absolute and not value.startswith("~"), value
    elif not absolute and not value.startswith("~"):
        assert not stays, (value, problem)
