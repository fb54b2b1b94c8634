"""The gallery's image-folder CNN (examples/image_folder) and its Keras 3 version
(examples/keras/image_folder.py): the script's folder (30 images), one epoch of each; both
read the same classes and the same training/validation split of the files."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

import tensorweave.config as twc
from tests.examples.gallery import EXAMPLES, script


def test_image_folder_config_and_keras_version_train_one_epoch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tensorweave_train as twt

    folder = tmp_path / "data" / "shapes"
    assert script("image_folder/make_images.py").write(folder, per_class=10) == 30
    assert len(list(folder.rglob("*.jpg"))) == len(list(folder.rglob("*.png"))) == 15
    cfg = twc.load(
        EXAMPLES / "image_folder/image_folder.toml",
        overrides=["--train.epochs=1", f"--data.directory={folder}"],
    )
    summary = twt.train_job(cfg, run_dir=tmp_path / "run", out=None, progress=False)
    assert summary["train_examples"] == 24 and summary["epochs"] == 1
    assert 0.0 <= summary["valid"]["accuracy"] <= 1.0
    assert list((tmp_path / "run" / "checkpoints").iterdir())

    monkeypatch.chdir(tmp_path)  # the Keras script reads data/shapes, as its README says
    monkeypatch.setenv("EPOCHS", "1")
    keras_run = runpy.run_path(str(EXAMPLES / "keras/image_folder.py"))
    assert keras_run["train"].class_names == ["circle", "square", "triangle"]
    assert keras_run["model"].output_shape == (None, 3)
    history = keras_run["history"].history
    assert len(history["loss"]) == 1 and 0.0 <= history["val_accuracy"][0] <= 1.0
    # Keras's split and the config's (image_folder.v1 follows it): 24 training files, 6 held out
    assert sum(int(x.shape[0]) for x, _ in keras_run["train"]) == 24
