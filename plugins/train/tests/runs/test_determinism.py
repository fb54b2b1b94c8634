"""``[train] deterministic = true``: two runs of the same config give bit-equal weights, and
the setting is recorded in the run (filled config and summary)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from twtrain_helpers import TINY, trained_run

from tensorweave_train.runs import determinism

pytestmark = pytest.mark.usefixtures("cli")

DETERMINISTIC = [*TINY, "--train.deterministic=true", "--train.seed=3"]


@pytest.mark.slow
def test_two_deterministic_runs_give_bit_equal_weights(tmp_path: Path) -> None:
    # another seed drawn in between must not matter: the job seeds everything itself
    first = trained_run(tmp_path / "a", DETERMINISTIC)
    random.random(), np.random.rand()
    second = trained_run(tmp_path / "b", DETERMINISTIC)
    a = json.loads((first / "summary.json").read_text())
    b = json.loads((second / "summary.json").read_text())
    assert a["weights_sha256"] == b["weights_sha256"]
    assert a["history"] == b["history"]
    assert a["deterministic"] is True and a["seed"] == 3
    filled = json.loads((first / "config.json").read_text())
    assert filled["train"]["deterministic"] is True
    # the process-wide switch is left as the job found it
    assert not determinism.op_determinism()


def test_apply_seeds_python_numpy_and_tensorflow() -> None:
    import tensorflow as tf

    from tensorweave_train.runs.job import TrainSettings

    turned_on = determinism.apply(TrainSettings(seed=5, deterministic=True))
    try:
        assert turned_on and determinism.op_determinism()
        drawn = (random.random(), np.random.rand(), float(tf.random.uniform([])))
    finally:
        determinism.restore(turned_on)
    assert not determinism.op_determinism()
    determinism.apply(TrainSettings(seed=5))
    assert (random.random(), np.random.rand(), float(tf.random.uniform([]))) == drawn


def test_summary_records_deterministic_false_by_default(digits_run: Path) -> None:
    summary = json.loads((digits_run / "summary.json").read_text())
    assert summary["deterministic"] is False and summary["seed"] == 0


def test_deterministic_is_refused_on_several_workers() -> None:
    import tensorweave.config as twc
    from tensorweave_train.runs.job import TrainSettings

    with pytest.raises(twc.ConfigError, match=r"train.deterministic: is for one process"):
        determinism.apply(TrainSettings(deterministic=True, strategy="multi_worker"))
    assert not determinism.op_determinism()


@pytest.mark.slow
def test_a_job_runs_when_op_determinism_is_already_on(tmp_path: Path) -> None:
    # TF_DETERMINISTIC_OPS=1 (or a caller) turns op determinism on before the job: an
    # unseeded global generator would then be refused ("get_global_generator cannot be called
    # if determinism is enabled"); the job seeds it, so the run trains and checkpoints
    import tensorflow as tf

    tf.config.experimental.enable_op_determinism()
    try:
        run = trained_run(tmp_path / "on", TINY)
    finally:
        determinism.restore(True)
    assert json.loads((run / "summary.json").read_text())["deterministic"] is False
    assert (run / "checkpoints").is_dir()
