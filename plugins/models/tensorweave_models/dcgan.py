"""DCGAN (Radford et al., 2015): ``DCGANGenerator`` and ``DCGANDiscriminator``, as
TensorFlow's DCGAN tutorial builds them.

The generator projects a latent vector to a small ``[s, s, 64 * 2**depth]`` map (a dense
layer without bias, batch norm, leaky ReLU), then transposed 5x5 convolutions without bias:
one keeping the size, ``depth - 1`` doubling it (each with batch norm and leaky ReLU,
halving the filters) and a last one doubling it to ``image_shape`` with ``tanh``
(pixels in ``[-1, 1]``), so ``s = height / 2**depth``. The discriminator is ``depth``
strided 5x5 convolutions (64, 128… filters) with leaky ReLU and dropout, flattened into one
logit per image (real or fake). ``width`` multiplies the filters. For 28x28x1 images
(``depth=2``, ``width=1``, a 100-d latent) they have the tutorial's 2,330,944 and 212,865
parameters.

>>> import tensorweave as tw
>>> g = tw.models["DCGANGenerator.v1"]((16,), image_shape=(8, 8, 1), width=0.25)
>>> d = tw.models["DCGANDiscriminator.v1"](g, width=0.25)
>>> g.shape, d.shape
((None, 8, 8, 1), (None, 1))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorweave as tw
from tensorweave_models.build import (
    check_rate,
    check_width,
    finish,
    input_layer,
    layer,
    reshape,
    scaled,
    scope,
)

__all__ = ["DCGANGenerator", "DCGANDiscriminator"]

IMAGES = "images [batch, height, width, channels]"


def _bn_leaky(x: tw.Layer, names: Any, prefix: str, momentum: float) -> tw.Layer:
    h = layer("BatchNorm.v1")(x, momentum=momentum, name=names(f"{prefix}_bn"))
    return layer("Activation.v1")(h, "leaky_relu", name=names(f"{prefix}_relu"))


@tw.checks_keywords
def DCGANGenerator(
    x: tw.Layer | Sequence[int | None],
    *,
    image_shape: Sequence[int] = (28, 28, 1),
    depth: int = 2,
    width: float = 1.0,
    momentum: float = 0.99,
    output_activation: Any = "tanh",
    name: str | None = None,
) -> tw.Module:
    """A DCGAN generator from latent vectors ``x`` to images, as a ``tw.Module``.

    Args:
        x: latent vectors ``[batch, latent_dim]`` (a layer), or ``(latent_dim,)``.
        image_shape: the generated images' ``(height, width, channels)``; height and width
            multiples of ``2 ** depth``.
        depth: the number of size doublings.
        width: a multiplier of every layer's filters (``1.0``: 256, 128, 64 at ``depth=2``).
        momentum: of the batch norms.
        output_activation: of the last layer (``"tanh"``: pixels in ``[-1, 1]``).
        name: the module's name (default ``"dcgan_generator"``).
    """
    with scope("DCGANGenerator", name, "dcgan_generator") as names:
        who = names.who
        depth = tw.positive_int(depth, "depth", who)
        width = check_width(width, who)
        shape = tuple(tw.positive_int(d, "image_shape", who) for d in image_shape)
        if len(shape) != 3 or shape[0] % 2**depth or shape[1] % 2**depth:
            raise tw.ShapeError(
                f"{who}: image_shape must be (height, width, channels) with height and width "
                f"multiples of 2 ** depth = {2**depth}, got {tuple(image_shape)}. Fix: "
                "change depth, or generate a larger image and crop it."
            )
        latent = input_layer(x, who, rank=2, what="latent vectors [batch, latent_dim]")
        side = (shape[0] // 2**depth, shape[1] // 2**depth)
        filters = scaled(64 * 2**depth, width)
        h = layer("FC.v1")(
            latent,
            side[0] * side[1] * filters,
            activation=None,
            add_bias=False,
            name=names("project"),
        )
        h = _bn_leaky(h, names, "project", momentum)
        h = reshape(h, (*side, filters), names("reshape"))
        for i in range(depth):
            h = layer("Conv2DTranspose.v1")(
                h,
                scaled(64 * 2 ** (depth - 1 - i), width),
                5,
                strides=1 if i == 0 else 2,
                add_bias=False,
                name=names(f"deconv{i}"),
                padding="same",
            )
            h = _bn_leaky(h, names, f"deconv{i}", momentum)
        out = layer("Conv2DTranspose.v1")(
            h,
            shape[2],
            5,
            strides=2,
            add_bias=False,
            activation=output_activation,
            name=names("image"),
            padding="same",
        )
        return finish(latent, out, names)


@tw.checks_keywords
def DCGANDiscriminator(
    x: tw.Layer | Sequence[int | None],
    *,
    depth: int = 2,
    width: float = 1.0,
    dropout: float = 0.3,
    name: str | None = None,
) -> tw.Module:
    """A DCGAN discriminator from images ``x`` to one logit each (``> 0``: real), as a
    ``tw.Module``.

    Args:
        x: images ``[batch, height, width, channels]`` (a layer, e.g. a generator), or one
            image's shape; the height and width must be fixed (the features are flattened).
        depth: the number of strided convolutions.
        width: a multiplier of every layer's filters (``1.0``: 64, 128…).
        dropout: the rate after each convolution.
        name: the module's name (default ``"dcgan_discriminator"``).
    """
    with scope("DCGANDiscriminator", name, "dcgan_discriminator") as names:
        who = names.who
        depth = tw.positive_int(depth, "depth", who)
        width = check_width(width, who)
        dropout = check_rate(dropout, who, "dropout")
        image = input_layer(x, who, rank=4, what=IMAGES)
        if None in image.shape[1:]:
            raise tw.ShapeError(
                f"{who}: the image size must be fixed (its features are flattened), got "
                f"{image.shape}. Fix: give the height, width and channels."
            )
        h = image
        for i in range(depth):
            h = layer("Conv2D.v1")(
                h, scaled(64 * 2**i, width), 5, strides=2, name=names(f"conv{i}"), padding="same"
            )
            h = layer("Activation.v1")(h, "leaky_relu", name=names(f"conv{i}_relu"))
            if dropout:
                h = layer("Dropout.v1")(h, dropout, name=names(f"conv{i}_dropout"))
        h = layer("Flatten.v1")(h, name=names("flatten"))
        logit = layer("Linear.v1")(h, 1, name=names("logit"))
        return finish(image, logit, names)
