"""The gallery's image classifier with augmentation (examples/augmented_images): one epoch
on 96 digits; augmentation is off at evaluation (the same figures twice)."""

from __future__ import annotations

from pathlib import Path

from tests.examples.gallery import train_tiny


def test_augmented_images_config_trains_one_epoch(tmp_path: Path) -> None:
    import numpy as np

    import tensorweave_train as twt

    summary = train_tiny(
        "augmented_images/augmented_images.toml", tmp_path / "run", "--data.limit=96"
    )
    assert 0.0 <= summary["valid"]["accuracy"] <= 1.0
    model = twt.load_model(tmp_path / "run")
    images = np.random.default_rng(0).random((4, 64)).astype("float32") * 16
    np.testing.assert_array_equal(model.predict(images), model.predict(images))
