"""Fitting a job: the NaN guard before and during training, and a quiet job's last word."""

from __future__ import annotations

from pathlib import Path

import pytest
from twtrain_helpers import (
    TINY,
)

import tensorweave as tw
import tensorweave_train as twt
from tensorweave_train.runs import fitting

pytestmark = pytest.mark.usefixtures("cli")


def test_nan_in_training_data_stops_the_cli_job(tmp_path: Path) -> None:
    cfg = twt.load_config(None, TINY)
    job = twt.build_job(cfg)
    job.data.train["x"][3, 5] = float("nan")
    with pytest.raises(tw.TensorweaveError, match=r"'x' has NaN or inf values \(first at ex"):
        fitting.check_data(job)
    # a NaN that appears while training (here: weights) stops the job at the epoch's end
    job.data.train["x"][3, 5] = 0.0
    job.model.build()
    weight = job.model.trainable_variables[0]
    weight.assign(weight * float("nan"))
    with pytest.raises(tw.TensorweaveError, match=r"hold NaN/inf at epoch 1 \(step 3\)"):
        fitting.fit(job, twt.Run(tmp_path), progress=False, out=None)
    assert len((tmp_path / "log.csv").read_text().splitlines()) == 2  # stopped after epoch 1


def test_a_quiet_job_still_says_why_it_stopped_early(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = twt.load_config(None, [*TINY, "--train.epochs=4"])
    stop = {"@callbacks": "EarlyStopping.v1", "monitor": "loss", "patience": 1, "min_delta": 9.0}
    cfg["callbacks"] = [stop]  # no epoch improves the loss by 9: stops after the second
    summary = twt.train_job(cfg, run_dir=tmp_path / "r", out=None)
    assert summary["epochs"] == 2 and summary["stopped"].startswith("EarlyStopping: loss")
    assert capsys.readouterr().out == f"Stopped after epoch 2: {summary['stopped']}\n"
