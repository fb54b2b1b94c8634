"""The gallery's VAE on the digits (examples/vae_digits): one epoch on 64 images."""

from __future__ import annotations

import math

from tests.examples.gallery import script


def test_vae_digits_script_trains_one_epoch() -> None:
    figures = script("vae_digits/vae_digits.py").main(epochs=1, limit=64)
    assert math.isfinite(figures["loss"]) and figures["loss"] > 0.0
    assert figures["kl"] >= 0.0  # a KL divergence
