"""The gallery's CNN on the digits (examples/cnn_digits): one epoch on 96 images."""

from __future__ import annotations

from pathlib import Path

from tests.examples.gallery import train_tiny


def test_cnn_digits_config_trains_one_epoch(tmp_path: Path) -> None:
    summary = train_tiny("cnn_digits/cnn_digits.toml", tmp_path / "run", "--data.limit=96")
    assert 0.0 <= summary["valid"]["accuracy"] <= 1.0
    assert list((tmp_path / "run" / "checkpoints").iterdir())
