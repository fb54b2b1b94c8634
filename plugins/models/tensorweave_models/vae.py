"""``VAE``: a convolutional variational autoencoder (Kingma & Welling, 2013), as Keras's
"Variational AutoEncoder" example builds it.

The *encoder* (``depth`` strided 3x3 convolutions with ReLU, 32, 64… filters, and a dense
layer of ``intermediate_dim``) gives each image the mean and log-variance of a Gaussian
over ``latent_dim`` latent variables (``z_mean``, ``z_log_var``); the *sampling* node
``z`` draws from it with the reparameterization trick (``GaussianSample``: at training
time ``z_mean + exp(z_log_var / 2) * eps``, at inference ``z_mean``); the *decoder* (a
dense layer, transposed convolutions mirroring the encoder) maps ``z`` back to an image
(``sigmoid``: pixels in ``[0, 1]``). The module's output is the reconstruction; its parts
are attributes of the module the builder returns:

- ``encoder`` and ``decoder``, sub-modules (``vae.decoder.reuse_with(tw.Input(n_units=2))``
  generates images from latent vectors, sharing the weights);
- ``z_mean``, ``z_log_var``, ``z``: the latent nodes;
- ``kl``: the KL divergence of the latent Gaussian from the standard normal, averaged over
  the batch, a node to add to the reconstruction loss.

Train on the parts (``vae.output`` is the decoder node): a loss such as
``bce(x, vae.output) + vae.kl`` reads every node once; ``vae`` itself (the folded module)
would run the encoder a second time for ``kl``. For 28x28x1 images with ``latent_dim=2``
the encoder and decoder have the Keras example's 69,076 and 65,089 parameters.

>>> import numpy as np, tensorweave as tw
>>> vae = tw.models["VAE.v1"]((8, 8, 1), latent_dim=2, width=0.25)
>>> vae.shape, vae.z.shape, vae.kl.shape
((None, 8, 8, 1), (None, 2), ())
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_models.build import (
    check_width,
    finish,
    input_layer,
    layer,
    reshape,
    scaled,
    scope,
)

__all__ = ["VAE", "VAEModule", "GaussianSample", "gaussian_kl"]


class GaussianSample(tw.Layer):
    """A draw from ``N(z_mean, exp(z_log_var))`` by the reparameterization trick
    (``z_mean + exp(z_log_var / 2) * eps``, ``eps`` standard normal), so gradients reach
    both inputs; ``training=False`` returns ``z_mean``.

    >>> import numpy as np, tensorweave as tw
    >>> mean = tw.Input(n_units=2, value=np.zeros((3, 2), "float32"))
    >>> log_var = tw.Input(n_units=2, value=np.zeros((3, 2), "float32"))
    >>> GaussianSample(mean, log_var, training=False)().numpy().tolist()
    [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]
    """

    def __init__(
        self,
        z_mean: tw.Layer,
        z_log_var: tw.Layer,
        *,
        training: bool = True,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        if z_mean.shape != z_log_var.shape:
            raise tw.ShapeError(
                f"GaussianSample: z_mean {z_mean.shape} and z_log_var {z_log_var.shape} "
                "must have one shape. Fix: make both with the same number of units."
            )
        self.training = bool(training)
        super().__init__(
            z_mean,
            z_log_var,
            shape=z_mean.shape,
            dtype=z_mean.dtype,
            name=name,
            share_state_with=share_state_with,
        )

    def compute(self, z_mean: Any, z_log_var: Any) -> tf.Tensor:
        """``z_mean + exp(z_log_var / 2) * eps`` (training), else ``z_mean``."""
        if not self.training:
            return tf.convert_to_tensor(z_mean)
        eps = tf.random.normal(tf.shape(z_mean), dtype=z_mean.dtype)
        return z_mean + tf.exp(0.5 * z_log_var) * eps

    def reuse_with(  # type: ignore[override]  # explicit per-use options
        self,
        z_mean: tw.Layer,
        z_log_var: tw.Layer,
        *,
        training: bool | None = None,
        name: str | None = None,
    ) -> GaussianSample:
        """The same draw on new inputs; ``training=False`` gives the mean."""
        return GaussianSample(
            z_mean,
            z_log_var,
            training=self.training if training is None else training,
            name=name,
            share_state_with=self,
        )


def _kl(z_mean: tf.Tensor, z_log_var: tf.Tensor) -> tf.Tensor:
    terms = 1.0 + z_log_var - tf.square(z_mean) - tf.exp(z_log_var)
    return tf.reduce_mean(-0.5 * tf.reduce_sum(terms, axis=-1))


def gaussian_kl(z_mean: tw.Layer, z_log_var: tw.Layer, *, name: str | None = None) -> tw.Layer:
    """``KL(N(z_mean, exp(z_log_var)) || N(0, 1))`` summed over the latent units and
    averaged over the batch, as a graph node (a scalar).

    >>> import numpy as np, tensorweave as tw
    >>> mean = tw.Input(n_units=2, value=np.ones((4, 2), "float32"))
    >>> log_var = tw.Input(n_units=2, value=np.zeros((4, 2), "float32"))
    >>> float(gaussian_kl(mean, log_var)())
    1.0
    """
    return tw.Lambda(_kl, z_mean, z_log_var, shape=(), name=name or "kl")


class VAEModule(tw.Module):
    """The module ``VAE`` returns: the reconstruction, with its parts as attributes
    (``encoder``, ``decoder``, ``z_mean``, ``z_log_var``, ``z``, ``kl``)."""

    encoder: tw.Module
    decoder: tw.Module
    z_mean: tw.Layer
    z_log_var: tw.Layer
    z: tw.Layer
    kl: tw.Layer


@tw.checks_keywords
def VAE(
    x: tw.Layer | Sequence[int | None],
    *,
    latent_dim: int = 2,
    intermediate_dim: int = 16,
    depth: int = 2,
    width: float = 1.0,
    output_activation: Any = "sigmoid",
    name: str | None = None,
) -> VAEModule:
    """A convolutional VAE on images ``x``, as a ``tw.Module`` giving the reconstruction.

    Args:
        x: images ``[batch, height, width, channels]`` (a layer), or one image's shape;
            height and width must be fixed multiples of ``2 ** depth``.
        latent_dim: the latent variables.
        intermediate_dim: the encoder's dense layer before the latent Gaussian.
        depth: the strided convolutions of the encoder (and transposed ones of the decoder).
        width: a multiplier of every layer's filters (``1.0``: 32, 64…).
        output_activation: of the decoder's last layer (``"sigmoid"``: pixels in
            ``[0, 1]``; ``None``: logits).
        name: the module's name (default ``"vae"``).
    """
    with scope("VAE", name, "vae") as names:
        who = names.who
        latent_dim = tw.positive_int(latent_dim, "latent_dim", who)
        intermediate_dim = tw.positive_int(intermediate_dim, "intermediate_dim", who)
        depth = tw.positive_int(depth, "depth", who)
        width = check_width(width, who)
        image = input_layer(x, who, rank=4, what="images [batch, height, width, channels]")
        height, wide, channels = image.shape[1:]
        if (
            height is None
            or wide is None
            or channels is None
            or height % 2**depth
            or wide % 2**depth
        ):
            raise tw.ShapeError(
                f"{who}: the image size must be fixed, with height and width multiples of "
                f"2 ** depth = {2**depth}, got {image.shape}. Fix: resize or pad the images, "
                "or change depth."
            )
        filters = [scaled(32 * 2**i, width) for i in range(depth)]
        h = image
        for i, f in enumerate(filters):
            h = layer("Conv2D.v1")(
                h,
                f,
                3,
                strides=2,
                activation="relu",
                name=names(f"encoder_conv{i}"),
                padding="same",
            )
        h = layer("Flatten.v1")(h, name=names("encoder_flatten"))
        h = layer("FC.v1")(h, intermediate_dim, activation="relu", name=names("encoder_dense"))
        encoder = tw.Module(image, h, name=names("encoder"))
        z_mean = layer("Linear.v1")(encoder, latent_dim, name=names("z_mean"))
        z_log_var = layer("Linear.v1")(encoder, latent_dim, name=names("z_log_var"))
        z = GaussianSample(z_mean, z_log_var, name=names("z"))
        side = (height // 2**depth, wide // 2**depth)
        h = layer("FC.v1")(
            z, side[0] * side[1] * filters[-1], activation="relu", name=names("decoder_dense")
        )
        h = reshape(h, (*side, filters[-1]), names("decoder_reshape"))
        for i, f in enumerate(reversed(filters)):
            h = layer("Conv2DTranspose.v1")(
                h,
                f,
                3,
                strides=2,
                activation="relu",
                name=names(f"decoder_deconv{i}"),
                padding="same",
            )
        h = layer("Conv2DTranspose.v1")(
            h,
            channels,
            3,
            activation=output_activation,
            name=names("decoder_output"),
            padding="same",
        )
        decoder = tw.Module(z, h, name=names("decoder"))
        module = finish(image, decoder, names, cls=VAEModule)
        module.encoder, module.decoder = encoder, decoder
        module.z_mean, module.z_log_var, module.z = z_mean, z_log_var, z
        module.kl = gaussian_kl(z_mean, z_log_var, name=names("kl"))
        return module
