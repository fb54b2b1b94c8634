"""A variational autoencoder (Kingma & Welling, 2013) on scikit-learn's 8x8 digits: the
`models` pack's ``VAE.v1`` (convolutional encoder, a 2-d latent Gaussian, transposed-
convolution decoder), trained through ``Model.train`` on its negative ELBO: the
reconstruction's binary cross-entropy summed over the 64 pixels plus the module's ``kl``
node. Run it: ``python examples/vae_digits/vae_digits.py``.
"""

from __future__ import annotations

import time
from typing import Any

import tensorflow as tf

import tensorweave as tw
import tensorweave_train as twt


def main(epochs: int = 30, batch_size: int = 32, limit: int | None = None) -> dict[str, Any]:
    """Train; returns the validation figures (negative ELBO, its KL part) and the time."""
    start = time.perf_counter()
    tf.random.set_seed(0)
    data = tw.datasets["digits.v1"](image=True, limit=limit, workers=0)
    x = tw.Input(shape=(8, 8, 1), name="x")
    vae = tw.models["VAE.v1"](x, latent_dim=2, intermediate_dim=32, width=0.5)
    bce = tw.losses["binary_cross_entropy.v1"](x, vae.output, from_logits=False)
    loss = bce * 64.0 + vae.kl  # per pixel mean -> sum over the 64 pixels, plus KL
    model = twt.Model(x, vae.output, loss=loss, metrics={"kl": vae.kl}, optimizer=twt.Adam(2e-3))
    model.train({"x": data.train["x"]}, epochs=epochs, batch_size=batch_size, verbose=0)
    figures = model.evaluate({"x": data.valid["x"]}, batch_size=256)
    return {**figures, "seconds": time.perf_counter() - start}


if __name__ == "__main__":
    print(main())
