"""U-Net (Ronneberger et al., 2015): a segmentation network scoring every pixel.

The contracting path repeats, ``depth`` times, two 3x3 convolutions with ReLU and a 2x2 max
pool, doubling the filters each level (64, 128, 256, 512 at ``width=1``); a bottom level of
two convolutions (1024); the expanding path repeats a 2x2 transposed convolution (up by
two, halving the filters), a concatenation with the contracting level's features of the
same size (the skip connection) and two 3x3 convolutions; a 1x1 convolution gives
``classes`` scores per pixel. Convolutions pad (``"same"``), so the output has the input's
height and width, which must be multiples of ``2 ** depth``. ``batch_norm`` puts a batch
norm between each convolution (then without bias) and its ReLU.

>>> import tensorweave as tw
>>> net = tw.models["UNet.v1"]((32, 32, 1), classes=3, width=0.125, depth=3)
>>> net.shape
(None, 32, 32, 3)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorweave as tw
from tensorweave_models.build import Scope, check_width, finish, input_layer, layer, scaled, scope

__all__ = ["UNet"]


def _double_conv(
    x: tw.Layer, filters: int, names: Scope, prefix: str, batch_norm: bool
) -> tw.Layer:
    h = x
    for i in (1, 2):
        h = layer("Conv2D.v1")(
            h,
            filters,
            3,
            activation=None if batch_norm else "relu",
            add_bias=not batch_norm,
            name=names(f"{prefix}_conv{i}"),
            padding="same",
        )
        if batch_norm:
            h = layer("BatchNorm.v1")(h, name=names(f"{prefix}_bn{i}"))
            h = layer("Activation.v1")(h, "relu", name=names(f"{prefix}_relu{i}"))
    return h


@tw.checks_keywords
def UNet(
    x: tw.Layer | Sequence[int | None],
    *,
    classes: int = 2,
    depth: int = 4,
    width: float = 1.0,
    batch_norm: bool = False,
    classifier_activation: Any = "softmax",
    name: str | None = None,
) -> tw.Module:
    """A U-Net on ``x``, as a ``tw.Module`` giving ``[batch, height, width, classes]``.

    Args:
        x: images ``[batch, height, width, channels]`` (a layer), or one image's shape;
            known heights and widths must be multiples of ``2 ** depth``.
        classes: the scores per pixel (the output channels).
        depth: the number of down-samplings (4 in the paper).
        width: a multiplier of every layer's filters (``1.0``: 64 at the first level).
        batch_norm: a batch norm after each 3x3 convolution.
        classifier_activation: applied to the scores (``None``: logits).
        name: the module's name (default ``"unet"``).
    """
    with scope("UNet", name, "unet") as names:
        who = names.who
        classes = tw.positive_int(classes, "classes", who)
        depth = tw.positive_int(depth, "depth", who)
        width = check_width(width, who)
        image = input_layer(x, who, rank=4, what="images [batch, height, width, channels]")
        step = 2**depth
        if any(d is not None and d % step for d in image.shape[1:3]):
            raise tw.ShapeError(
                f"{who}: the height and width of {image.shape} must be multiples of "
                f"2 ** depth = {step} (each level halves them, the expanding path doubles "
                "them back). Fix: resize or pad the images, or lower depth."
            )
        skips = []
        h = image
        for level in range(depth):
            h = _double_conv(h, scaled(64 * 2**level, width), names, f"down{level}", batch_norm)
            skips.append(h)
            h = layer("MaxPool2D.v1")(h, 2, name=names(f"down{level}_pool"))
        h = _double_conv(h, scaled(64 * 2**depth, width), names, "bottom", batch_norm)
        for level in reversed(range(depth)):
            filters = scaled(64 * 2**level, width)
            h = layer("Conv2DTranspose.v1")(
                h, filters, 2, strides=2, name=names(f"up{level}_upconv"), padding="same"
            )
            h = layer("Concat.v1")(skips[level], h, name=names(f"up{level}_concat"))
            h = _double_conv(h, filters, names, f"up{level}", batch_norm)
        out = layer("Conv2D.v1")(
            h, classes, 1, activation=classifier_activation, name=names("output"), padding="same"
        )
        return finish(image, out, names)
