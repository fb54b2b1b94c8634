"""VGG16 (Simonyan & Zisserman, 2014), ``keras.applications.VGG16`` layer for layer.

Five blocks of 3x3 convolutions with ReLU (64, 128, 256, 512, 512 filters; 2, 2, 3, 3, 3
of them), each ending in a 2x2 max pool; the top flattens the last feature map into two
dense layers of 4096 and the classifier (so with the top the image size is fixed: 224x224
gives Keras's 138,357,544 parameters). Layer names are Keras's (``block1_conv1``…,
``fc1``, ``fc2``, ``predictions``). ``width`` multiplies every layer's units.

>>> import tensorweave as tw
>>> net = tw.models["VGG16.v1"]((32, 32, 3), include_top=False, width=0.125)
>>> net.shape
(None, 1, 1, 64)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorweave as tw
from tensorweave_models.build import check_width, finish, input_layer, layer, scaled, scope
from tensorweave_models.heads import Head, image_head

__all__ = ["VGG16"]

#: (filters, convolutions) of the five blocks
BLOCKS = ((64, 2), (128, 2), (256, 3), (512, 3), (512, 3))


@tw.checks_keywords
def VGG16(
    x: tw.Layer | Sequence[int | None],
    *,
    include_top: bool = True,
    weights: str | None = None,
    pooling: str | None = None,
    classes: int = 1000,
    classifier_activation: Any = "softmax",
    width: float = 1.0,
    name: str | None = None,
) -> tw.Module:
    """VGG16 on ``x``, as a ``tw.Module``.

    Args:
        x: images ``[batch, height, width, channels]`` (a layer), or one image's shape; with
            ``include_top`` the height and width must be fixed.
        include_top, weights, pooling, classes, classifier_activation, width: as
            ``ResNet50``'s (``width`` also scales the two 4096-unit dense layers).
        name: the module's name (default ``"vgg16"``).
    """
    with scope("VGG16", name, "vgg16") as names:
        who = names.who
        head = Head.checked(who, include_top, pooling, classes, classifier_activation)
        width = check_width(width, who)
        image = input_layer(x, who, rank=4, what="images [batch, height, width, channels]")
        if include_top and None in image.shape[1:]:
            raise tw.ShapeError(
                f"{who}: with include_top the image size must be fixed (the top flattens the "
                f"feature map), got {image.shape}. Fix: give the height and width, or "
                "include_top=False with pooling='avg'."
            )
        h = image
        for b, (filters, convs) in enumerate(BLOCKS, 1):
            for c in range(1, convs + 1):
                h = layer("Conv2D.v1")(
                    h,
                    scaled(filters, width),
                    3,
                    activation="relu",
                    name=names(f"block{b}_conv{c}"),
                    padding="same",
                )
            h = layer("MaxPool2D.v1")(h, 2, strides=2, name=names(f"block{b}_pool"))
        if include_top:
            h = layer("Flatten.v1")(h, name=names("flatten"))
            for fc in ("fc1", "fc2"):
                h = layer("FC.v1")(h, scaled(4096, width), activation="relu", name=names(fc))
            out = head.dense(h, names)
        else:
            out = image_head(h, names, head, avg_name="global_average_pooling2d")
        counterpart = None
        if width == 1.0:
            from tensorweave_models.heads import keras_application

            counterpart = keras_application("VGG16", image, head)
        return finish(image, out, names, weights=weights, keras_counterpart=counterpart)
