"""The gallery's U-Net on synthetic shapes (examples/unet_shapes): one epoch on 48 images,
a `@models` node scored per pixel by `mean_iou.v1` through the job config."""

from __future__ import annotations

from pathlib import Path

from tests.examples.gallery import train_tiny


def test_unet_shapes_config_trains_one_epoch(tmp_path: Path) -> None:
    summary = train_tiny(
        "unet_shapes/unet_shapes.toml",
        tmp_path / "run",
        "--data.samples=24",
        "--model.nodes.body.depth=1",
    )
    assert 0.0 < summary["valid"]["mean_iou"] <= 1.0
    assert 0.0 <= summary["valid"]["accuracy"] <= 1.0
