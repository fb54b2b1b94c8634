"""A DCGAN (Radford et al., 2015) on scikit-learn's 8x8 digits, trained through
``Model.train``: the `models` pack's ``DCGANGenerator.v1`` and ``DCGANDiscriminator.v1``
at quarter width in a ``twt.GAN`` (two Adam optimizers, the non-saturating loss).

It writes an 8x8 grid of generated digits to a PNG and scores the generator with a small
digits classifier trained on the real digits: the Inception Score of that classifier,
``exp(E_x KL(p(y|x) || p(y)))`` (10 at most: confident samples, every class as often), and
the share of samples it classifies with probability above 0.9; the real validation
digits' figures are the reference. Run it:
``python examples/dcgan_digits/dcgan_digits.py [GRID.png]``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw
import tensorweave_train as twt

LATENT = 16


def classifier(data: dict[str, np.ndarray], epochs: int) -> twt.Model:
    """A small CNN trained on real digits (pixels in [0, 1]): the judge of the samples."""
    x, y = tw.Input(shape=(8, 8, 1), name="x"), tw.Input(shape=(), dtype="int64", name="y")
    h = tw.layers["Conv2D.v1"](x, n_units=32, kernel_size=3, padding="same", activation="relu")
    h = tw.layers["Flatten.v1"](tw.layers["MaxPool2D.v1"](h, pool_size=2))
    logits = tw.layers["Linear.v1"](h, n_units=10)
    probs = tw.layers["Activation.v1"](logits, activation="softmax")
    loss = tw.losses["sparse_categorical_cross_entropy.v1"](y, logits, from_logits=True)
    model = twt.Model(x, probs, targets=y, loss=loss, optimizer=twt.Adam(3e-3))
    model.train(data, epochs=epochs, batch_size=32, verbose=0)
    return model


def score(probs: np.ndarray) -> dict[str, float]:
    """The classifier's Inception Score of samples (their class probabilities ``[n, 10]``)
    and the share it classifies with probability above 0.9."""
    p = np.clip(probs, 1e-12, 1.0)
    kl = (p * (np.log(p) - np.log(p.mean(0)))).sum(1)
    return {
        "inception_score": float(np.exp(kl.mean())),
        "confident": float((p.max(1) > 0.9).mean()),
    }


def save_grid(images: np.ndarray, path: str | Path, zoom: int = 4) -> None:
    """The first 64 ``[8, 8, 1]`` images (pixels in [0, 1]) as an 8x8 grid in a PNG, ink
    dark on white, each pixel ``zoom`` x ``zoom`` (matplotlib: the train pack's ``plot``
    extra)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tiles = np.pad(images[:64, :, :, 0], ((0, 0), (1, 1), (1, 1)), constant_values=0.2)
    grid = tiles.reshape(8, 8, 10, 10).transpose(0, 2, 1, 3).reshape(80, 80)
    plt.imsave(path, np.kron(grid, np.ones((zoom, zoom))), cmap="gray_r", vmin=0.0, vmax=1.0)


def main(
    epochs: int = 60,
    batch_size: int = 16,
    learning_rate: float = 5e-4,
    width: float = 0.25,
    limit: int | None = None,
    samples: int = 1000,
    classifier_epochs: int = 15,
    grid: str | Path = "dcgan_digits.png",
) -> dict[str, Any]:
    """Train; writes the grid; returns the scores of generated and real digits, the
    classifier's validation accuracy and the times."""
    start = time.perf_counter()
    tf.random.set_seed(0)
    data = tw.datasets["digits.v1"](image=True, limit=limit, workers=0)
    g = tw.models["DCGANGenerator.v1"]((LATENT,), image_shape=(8, 8, 1), width=width, momentum=0.9)
    d = tw.models["DCGANDiscriminator.v1"](tw.Input(shape=(8, 8, 1), name="x"), width=width)
    adam = {net: twt.Adam(learning_rate, beta_1=0.5) for net in ("generator", "discriminator")}
    gan = twt.GAN(g, d, optimizer=adam)  # the non-saturating loss
    gan.train({"x": data.train["x"] * 2.0 - 1.0}, epochs=epochs, batch_size=batch_size, verbose=0)
    gan_seconds = time.perf_counter() - start
    z = np.random.default_rng(0).normal(size=(samples, LATENT)).astype("float32")
    fakes = (gan.predict(z) + 1.0) / 2.0  # tanh pixels back to [0, 1]
    save_grid(fakes, grid)
    judge = classifier({"x": data.train["x"], "y": data.train["y"]}, classifier_epochs)
    real = judge.predict(data.valid["x"])
    return {
        "generated": score(judge.predict(fakes)),
        "real": score(real),
        "classifier_accuracy": float((real.argmax(1) == data.valid["y"]).mean()),
        "gan_seconds": gan_seconds,
        "seconds": time.perf_counter() - start,
    }


if __name__ == "__main__":
    print(main(grid=sys.argv[1] if len(sys.argv) > 1 else "dcgan_digits.png"))
