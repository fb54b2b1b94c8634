"""``resume_job`` and ``tensorweave resume``: continuing an interrupted run, refusing what
would change it, and writing nothing when it cannot."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from twtrain_helpers import (
    copied,
    files_of,
    lock_holder,
    run_cli,
)

import tensorweave_train as twt

pytestmark = pytest.mark.usefixtures("cli")


@pytest.fixture
def copy(digits_run: Path, tmp_path: Path) -> Path:
    return copied(digits_run, tmp_path / "copy")


def test_resume_continues_to_more_epochs(copy: Path) -> None:
    summary = twt.resume_job(copy, ["--train.epochs=3"], out=None)
    assert summary["epochs"] == 3
    assert len((copy / "log.csv").read_text().splitlines()) == 4  # appended one epoch
    assert json.loads((copy / "config.json").read_text())["train"]["epochs"] == 3


def test_resume_refuses_an_architecture_change_and_writes_nothing(
    copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = files_of(copy)
    code, _, err = run_cli(capsys, "resume", str(copy), "--model.nodes.h1.n_units=13")
    assert code == 4, err
    assert "model.nodes.h1.n_units: this override changes the model's variables" in err
    assert files_of(copy) == before  # config.json untouched: evaluate still works
    assert set(twt.Run.open(copy).evaluate()) == {"loss", "accuracy"}


def test_damaged_manifest_falls_back_and_the_log_keeps_one_row_per_epoch(copy: Path) -> None:
    newest = twt.Checkpointer(copy).checkpoints()[-1]
    (newest / "MANIFEST.json").write_text("[]")  # valid JSON, not a manifest
    with pytest.warns(twt.CorruptCheckpointWarning, match="damaged MANIFEST"):
        summary = twt.resume_job(copy, ["--train.epochs=3"], out=None)
    assert summary["epochs"] == 3
    rows = (copy / "log.csv").read_text().splitlines()[1:]
    assert [float(r.split(",")[0]) for r in rows] == [1.0, 2.0, 3.0]  # numbered from 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert twt.Checkpointer(copy).latest() is not None  # the new checkpoints are fine


def test_resume_of_a_run_in_use_names_the_pid_and_writes_nothing(
    copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    holder = lock_holder(copy / ".lock")
    try:
        before = files_of(copy)
        code, _, err = run_cli(capsys, "resume", str(copy), "--train.epochs=3")
        assert code == 2 and f"run directory {copy} is in use by pid {holder.pid}" in err, err
        assert files_of(copy) == before
    finally:
        holder.kill()
        holder.wait()
