"""Job configs built: every problem is reported before anything is built, the data's fields
must feed the model, the model is built without the data, settings reach it."""

from __future__ import annotations

from pathlib import Path

import pytest

import tensorweave.config as twc
import tensorweave_train as twt
from tensorweave_train.runs.job import build_model, check_settings

pytestmark = pytest.mark.usefixtures("no_conflict_demo")

TINY = ["--data.limit=200", "--train.epochs=1", "--train.batch_size=64", "--dims.hidden=8"]


def test_every_problem_reported_before_building() -> None:
    cfg = twt.load_config(
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
        twt.build_job(cfg)
    errors = dict(info.value.errors)
    assert errors["model.nodes.h1.n_units"] == "expected int | None, got 'abc'"
    assert errors["train.epochs"] == "expected int, got 'many'"
    assert "unknown setting" in errors["train.epoks"]
    assert "Adam.v1" in errors["optimizer.@optimizers"]  # a close match is offered
    assert "unknown node 'nowhere'" in errors["model.nodes.logits.inputs"]


def test_data_fields_must_match_feed_names(tmp_path: Path) -> None:
    cfg = twt.load_config(None, TINY)
    nodes = cfg["model"]["nodes"]
    nodes["pixels"] = nodes.pop("x")
    nodes["h1"]["inputs"] = ["pixels"]
    cfg["model"]["inputs"] = ["pixels"]
    with pytest.raises(twc.ConfigError, match="no field 'pixels'"):
        twt.train_job(cfg, run_dir=tmp_path / "r", out=None)


def test_the_model_of_a_config_is_built_without_its_data() -> None:
    cfg = twt.load_config(None, [*TINY, "--data.@datasets=nothing_installed.v1"])
    model = build_model(cfg)  # the unknown dataset is never looked at
    assert [i.name for i in model.inputs] == ["x"] and model.loss is not None


def test_train_precision_reaches_the_model_and_bad_names_are_reported() -> None:
    cfg = twt.load_config(None, [*TINY, "--train.precision=mixed_bfloat16"])
    assert build_model(cfg).precision.name == "mixed_bfloat16"
    bad = twt.load_config(None, [*TINY, "--train.precision=bfloat16"])
    problems = dict(check_settings(bad))
    assert problems["train.precision"] == (
        "unknown precision 'bfloat16'; one of float32, mixed_bfloat16, mixed_float16"
    )
