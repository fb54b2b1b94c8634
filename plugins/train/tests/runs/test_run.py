"""``Run``: an opened run directory rebuilds its model from its config alone, restores it,
predicts through its processors, and names what does not fit; ``load_model`` is the same
model back in Python."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from twtrain_helpers import Dense

import tensorweave as tw
import tensorweave.config as twc
import tensorweave_train as twt

pytestmark = pytest.mark.usefixtures("no_conflict_demo")


def test_filled_config_alone_reproduces_the_model(digits_run: Path, tmp_path: Path) -> None:
    run, summary = digits_run, json.loads((digits_run / "summary.json").read_text())
    metrics = twt.Run.open(run).evaluate()
    assert metrics["accuracy"] == pytest.approx(summary["valid"]["accuracy"], abs=1e-6)
    assert metrics["loss"] == pytest.approx(summary["valid"]["loss"], rel=1e-5)
    # the same config trains to the same numbers (seeded): the file reproduces the run
    again = twt.train_job(twc.load(run / "config.json"), run_dir=tmp_path / "again", out=None)
    assert again["valid"]["loss"] == pytest.approx(summary["valid"]["loss"], rel=1e-4)


def test_predict_applies_saved_processors(digits_run: Path) -> None:
    from sklearn.datasets import load_digits

    run = digits_run
    raw = load_digits().data[:5]  # pixels 0..16, before any processing
    ids = twt.Run.open(run).predict(raw)
    assert ids.shape == (5,) and ids.dtype.kind == "i"
    job = twt.Run.open(run).job()
    probs = job.model.predict({"x": (raw / 16.0).astype("float32")})
    np.testing.assert_array_equal(ids, probs.argmax(-1))


def test_a_checkpoint_of_another_shape_names_the_layer_and_variable(tmp_path) -> None:
    def model(width: int) -> twt.Model:
        tw.reset_names()
        x = tw.Input(n_units=4, name="x")
        return twt.Model(inputs=x, outputs=Dense(Dense(x, width, name="enc"), 1, name="out"))

    small = model(8)
    small.build()
    twt.Checkpointer(tmp_path).save(small, {"epoch": 0, "step": 0})
    wide = model(16)
    wide.build()
    with pytest.raises(tw.TensorweaveError) as caught:
        twt.Run(tmp_path).restore(wide)
    message = str(caught.value)
    assert "layer 'enc' (Dense), variable 'enc/" in message
    assert "the checkpoint holds shape (" in message and "8" in message and "16" in message


def test_load_model_is_load_run_and_builds_no_data(digits_run: Path) -> None:
    run = digits_run
    assert twt.load_run is twt.load_model
    model = twt.load_model(run)
    job = twt.Run.open(run).job()
    raw = np.random.default_rng(0).random((3, 64)).astype("float32")
    np.testing.assert_array_equal(model.predict({"x": raw}), job.model.predict({"x": raw}))


def test_a_reference_that_is_not_a_run_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(twt.RunDirError, match="does not exist") as missing:
        twt.Run.open(tmp_path / "nothing")
    assert missing.value.exit_code == 2
    with pytest.raises(twt.RunDirError, match=r"is not a run directory \(no config.json\)"):
        twt.Run.open(tmp_path)
