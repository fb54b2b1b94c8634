"""A run's ``processors.json`` read back: anything but what ``tensorweave train`` wrote is a
``BadFileError`` saying the file is damaged and how to get it back."""

from __future__ import annotations

from pathlib import Path

import pytest

from tensorweave_data.reading import BadFileError
from tensorweave_train.runs.processors import Processors


def test_processors_json_round_trips(tmp_path: Path) -> None:
    saved = Processors([{"@processors": "scale.v1", "factor": 0.5}], [], {"n": 1}, ["x"])
    saved.save(tmp_path / "processors.json")
    assert Processors.load(tmp_path / "processors.json") == saved


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{\n  "preprocess": [\n    {"@processors": \n', "not valid JSON (line 4, column 1"),
        ("[1, 2]", "a JSON list, not an object"),
        (
            '{"preprocess": {"@processors": "scale.v1"}}',
            "its 'preprocess' is a JSON object, not a list",
        ),
        ('{"info": []}', "its 'info' is a JSON list, not an object"),
    ],
)
def test_a_damaged_processors_json_is_named(tmp_path: Path, text: str, problem: str) -> None:
    (path := tmp_path / "processors.json").write_text(text)
    with pytest.raises(BadFileError) as caught:
        Processors.load(path)
    message = str(caught.value)
    assert message.startswith(f"{path} is damaged ({problem}"), message
    assert "train the run again" in message
