"""A job config's sections and settings: the plain settings checked by type and value, a
key under the wrong table gets a hint, the layout's problems are listed together."""

from __future__ import annotations

from pathlib import Path

import pytest

import tensorweave.config as twc
import tensorweave_train as twt
from tensorweave_train.runs.job import (
    SECTIONS_ALL,
    TrainSettings,
    check_layout,
    check_settings,
    settings_of,
)


def test_callbacks_under_train_get_a_hint_that_they_are_top_level(tmp_path: Path) -> None:
    digits = twt.config_path(None).read_text()
    moved = digits + '\ncallbacks = [{ "@callbacks" = "EarlyStopping.v1", patience = 2 }]\n'
    assert moved.rstrip().rsplit("\n[", 1)[-1].startswith("train]")  # the last table
    path = tmp_path / "job.toml"
    path.write_text(moved)
    problems = dict(check_settings(twc.load(path)))
    assert "'callbacks' is a top-level key, not a [train] setting" in problems["train.callbacks"]
    assert "above the first [section]" in problems["train.callbacks"]


def test_settings_are_checked_by_type_and_value() -> None:
    cfg = twt.load_config(None, ["--train.limit=0", "--run.name=../up", "--train.shard=rows"])
    problems = dict(check_settings(cfg))
    assert problems["train.limit"] == "must be a positive integer, got 0"
    assert "run.name" in problems and "train.shard" in problems
    assert settings_of({"train": {"epochs": 3}}, "train") == TrainSettings(epochs=3)


@pytest.mark.parametrize(
    ("cfg", "path", "words"),
    [
        ({"dtaa": {"x": 1}}, "dtaa", "Did you mean [data]?"),
        ({"dims": {"w": {"@layers": "Linear.v1"}}}, "dims", "may only hold plain values"),
        ({"data": 3}, "data", "expected a dataset table"),
        ({"optimizer": 3}, "optimizer", "expected an optimizer table"),
        (
            {"optimizer": {"@optimizers": "SGD.v1", "learning_rate": -1}},
            "optimizer.learning_rate",
            "positive finite",
        ),
        ({"trainer": "gan"}, "trainer", "expected a trainer table"),
        ({"callbacks": {}}, "callbacks", "expected a list of callback tables"),
        ({"model": {"inputs": ["x"]}}, "model.outputs", "missing: name the node(s)"),
    ],
)
def test_layout_problems_name_the_path(cfg: dict, path: str, words: str) -> None:
    problems = dict(check_layout(cfg))
    assert words in problems[path]
    assert set(SECTIONS_ALL) >= {"data", "model", "train", "run"}
