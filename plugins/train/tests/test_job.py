"""The main job: config -> data, graph, model; run directory; evaluate, predict, resume."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import tensorweave as tw
import tensorweave.config as twc
from tensorweave_train import job as jobs
from tensorweave_train import restore


@pytest.fixture(autouse=True)
def _no_conflict_demo():
    """tests/integration/test_conflict.py installs a pack offering a second ``Linear.v1``
    for a moment; block it here so a parallel run cannot make the bare name ambiguous."""
    tw.plugins.block("tensorweave-conflict-demo")
    yield
    tw.plugins.unblock("tensorweave-conflict-demo")


TINY = [
    "--data.limit=300",
    "--train.epochs=2",
    "--train.batch_size=64",
    "--dims.hidden=16",
]


@pytest.fixture(scope="module")
def digits_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    run = tmp_path_factory.mktemp("runs") / "digits"
    cfg = jobs.load_config(None, TINY)
    summary = jobs.train(cfg, run_dir=run, source=jobs.config_path(None), out=None)
    return run, summary


def test_builtin_configs_validate() -> None:
    for name in jobs.DEFAULTS:
        cfg = jobs.load_config(name)
        assert jobs.check_settings(cfg) == [] and twc.validate(cfg) == []
    assert jobs.config_path(None).name == "digits.toml"


def test_every_problem_reported_before_building() -> None:
    cfg = jobs.load_config(
        None,
        [
            "--model.nodes.h1.n_units=abc",
            "--train.epochs=many",
            "--train.epoks=3",
            "--optimizer.@optimizers=Adamm.v1",
            '--model.nodes.logits.inputs=["nowhere"]',
        ],
    )
    with pytest.raises(twc.ConfigError) as info:
        jobs.build_job(cfg)
    errors = dict(info.value.errors)
    assert errors["model.nodes.h1.n_units"] == "expected int | None, got 'abc'"
    assert errors["train.epochs"] == "expected int, got 'many'"
    assert "unknown setting" in errors["train.epoks"]
    assert "Adam.v1" in errors["optimizer.@optimizers"]  # a close match is offered
    assert "unknown node 'nowhere'" in errors["model.nodes.logits.inputs"]


def test_run_directory_contents(digits_run: tuple[Path, dict]) -> None:
    run, summary = digits_run
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
    assert summary["epochs"] == 2 and summary["train_examples"] == 240
    assert set(summary["valid"]) == {"loss", "accuracy"}
    rows = (run / "log.csv").read_text().splitlines()
    assert rows[0].startswith("epoch,step,loss") and len(rows) == 3


def test_filled_config_alone_reproduces_the_model(digits_run: tuple[Path, dict]) -> None:
    run, summary = digits_run
    metrics = jobs.evaluate(run)
    assert metrics["accuracy"] == pytest.approx(summary["valid"]["accuracy"], abs=1e-6)
    assert metrics["loss"] == pytest.approx(summary["valid"]["loss"], rel=1e-5)
    # the same config trains to the same numbers (seeded): the file reproduces the run
    again = jobs.train(twc.load(run / "config.json"), run_dir=run.parent / "again", out=None)
    assert again["valid"]["loss"] == pytest.approx(summary["valid"]["loss"], rel=1e-4)


def test_predict_applies_saved_processors(digits_run: tuple[Path, dict]) -> None:
    from sklearn.datasets import load_digits

    run, _ = digits_run
    raw = load_digits().data[:5]  # pixels 0..16, before any processing
    ids = jobs.predict(run, raw)
    assert ids.shape == (5,) and ids.dtype.kind == "i"
    job = restore._restored(run)
    probs = job.model.predict({"x": (raw / 16.0).astype("float32")})
    np.testing.assert_array_equal(ids, probs.argmax(-1))


def test_resume_continues_to_more_epochs(digits_run: tuple[Path, dict], tmp_path: Path) -> None:
    import shutil

    run, _ = digits_run
    copy = tmp_path / "copy"
    shutil.copytree(run, copy)
    summary = jobs.resume(copy, ["--train.epochs=3"], out=None)
    assert summary["epochs"] == 3
    assert len((copy / "log.csv").read_text().splitlines()) == 4  # appended one epoch
    assert json.loads((copy / "config.json").read_text())["train"]["epochs"] == 3


def test_data_fields_must_match_feed_names(tmp_path: Path) -> None:
    cfg = jobs.load_config(None, [*TINY, "--train.epochs=1"])
    nodes = cfg["model"]["nodes"]
    nodes["pixels"] = nodes.pop("x")
    nodes["h1"]["inputs"] = ["pixels"]
    cfg["model"]["inputs"] = ["pixels"]
    with pytest.raises(twc.ConfigError, match="no field 'pixels'"):
        jobs.train(cfg, run_dir=tmp_path / "r", out=None)


@pytest.mark.slow
def test_char_model_trains_and_generates(tmp_path: Path) -> None:
    cfg = jobs.load_config(
        "chars",
        [
            "--data.limit=12000",
            "--data.seq_len=16",
            "--model.nodes.lstm.n_units=16",
            "--train.epochs=1",
            "--train.batch_size=64",
        ],
    )
    summary = jobs.train(cfg, run_dir=tmp_path / "chars", out=None)
    assert 1.0 < summary["valid"]["perplexity"] < 101.0
    text = jobs.predict(tmp_path / "chars", "def ", generate=5)
    assert isinstance(text, str) and text.startswith("def ") and len(text) == 9
