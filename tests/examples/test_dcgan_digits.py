"""The gallery's DCGAN on the digits (examples/dcgan_digits): the score of known class
probabilities, and one epoch on 64 images writing the sample grid."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from tests.examples.gallery import script


def test_score_of_certain_and_of_uniform_samples() -> None:
    dcgan = script("dcgan_digits/dcgan_digits.py")
    certain = np.eye(10)[np.arange(100) % 10]  # every class as often, each sample sure
    assert math.isclose(dcgan.score(certain)["inception_score"], 10.0, rel_tol=1e-6)
    assert dcgan.score(certain)["confident"] == 1.0
    one_class = np.tile(np.eye(10)[3], (20, 1))  # sure, but always the same digit
    assert math.isclose(dcgan.score(one_class)["inception_score"], 1.0, rel_tol=1e-6)
    uniform = dcgan.score(np.full((20, 10), 0.1))
    assert math.isclose(uniform["inception_score"], 1.0) and uniform["confident"] == 0.0


def test_dcgan_digits_script_trains_one_epoch_and_writes_the_grid(tmp_path: Path) -> None:
    grid = tmp_path / "grid.png"
    figures = script("dcgan_digits/dcgan_digits.py").main(
        epochs=1, limit=64, samples=64, classifier_epochs=1, grid=grid
    )
    assert grid.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for which in ("generated", "real"):
        assert 1.0 - 1e-6 <= figures[which]["inception_score"] <= 10.0 + 1e-6
        assert 0.0 <= figures[which]["confident"] <= 1.0
    assert 0.0 <= figures["classifier_accuracy"] <= 1.0
