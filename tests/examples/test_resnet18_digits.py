"""The gallery's ResNet18 on upsampled digits (examples/resnet18_digits): one epoch on 80
images (a `@models` node through the job config)."""

from __future__ import annotations

from pathlib import Path

from tests.examples.gallery import train_tiny


def test_resnet18_digits_config_trains_one_epoch(tmp_path: Path) -> None:
    summary = train_tiny(
        "resnet18_digits/resnet18_digits.toml", tmp_path / "run", "--data.limit=80"
    )
    assert 0.0 <= summary["valid"]["accuracy"] <= 1.0
