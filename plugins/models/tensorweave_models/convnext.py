"""ConvNeXt-Tiny (Liu et al., 2022), ``keras.applications.ConvNeXtTiny`` parameter for
parameter.

A 4x4 strided stem, four stages (``depths`` 3, 3, 9, 3 of 96, 192, 384, 768 channels) of
ConvNeXt blocks (a 7x7 depthwise convolution, a layer norm, a pointwise MLP with GELU, a
learned per-channel layer scale, a residual add), layer-norm-and-2x2-convolution
downsampling between stages. ``include_preprocessing`` (Keras's default) normalizes
pixels in ``[0, 255]`` with ImageNet's mean and deviation first. Without the top, the
(pooled) features are layer-normalized, as Keras does.

Keras makes the depthwise convolution a ``Conv2D`` with one group per channel; here it is
the ``DepthwiseConv2D`` it equals (``from_keras`` reshapes the kernel). The layers carry
Keras's names without the model's prefix (``stage_0_block_0_depthwise_conv``).

>>> import tensorweave as tw
>>> net = tw.models["ConvNeXtTiny.v1"]((32, 32, 3), classes=10)
>>> net.shape
(None, 10)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import tensorweave as tw
from tensorweave_models.build import Scope, finish, input_layer, layer, scope
from tensorweave_models.heads import Head

__all__ = ["ConvNeXtTiny", "convnext_block"]

DEPTHS = (3, 3, 9, 3)
DIMS = (96, 192, 384, 768)
#: ImageNet's per-channel mean and deviation, of pixels in [0, 255]
MEAN = np.array([0.485, 0.456, 0.406], "float32") * 255.0
STD = np.array([0.229, 0.224, 0.225], "float32") * 255.0


def _layer_norm(x: tw.Layer, names: Scope, leaf: str) -> tw.Layer:
    return layer("LayerNorm.v1")(x, epsilon=1e-6, name=names(leaf))


def convnext_block(
    x: tw.Layer, dim: int, names: Scope, prefix: str, layer_scale_init_value: float = 1e-6
) -> tw.Layer:
    """One ConvNeXt block on ``x`` (``dim`` channels), Keras's ``ConvNeXtBlock``."""
    h = layer("DepthwiseConv2D.v1")(x, 7, name=names(f"{prefix}_depthwise_conv"), padding="same")
    h = _layer_norm(h, names, f"{prefix}_layernorm")
    h = layer("FC.v1")(h, 4 * dim, activation="gelu", name=names(f"{prefix}_pointwise_conv_1"))
    h = layer("FC.v1")(h, dim, activation=None, name=names(f"{prefix}_pointwise_conv_2"))
    gamma = layer("Param.v1")(
        np.full([dim], layer_scale_init_value, "float32"),
        trainable=True,
        name=names(f"{prefix}_layer_scale"),
    )
    return layer("Add.v1")(x, h * gamma, name=names(f"{prefix}_add"))


@tw.checks_keywords
def ConvNeXtTiny(
    x: tw.Layer | Sequence[int | None],
    *,
    include_preprocessing: bool = True,
    include_top: bool = True,
    weights: str | None = None,
    pooling: str | None = None,
    classes: int = 1000,
    classifier_activation: Any = "softmax",
    name: str | None = None,
) -> tw.Module:
    """ConvNeXt-Tiny on ``x``, as a ``tw.Module``.

    Args:
        x: images ``[batch, height, width, channels]`` (a layer), or one image's shape.
        include_preprocessing: normalize 3-channel pixels in ``[0, 255]`` first (Keras's
            default; give ``False`` for inputs you normalize yourself).
        include_top, weights, pooling, classes, classifier_activation: as ``ResNet50``'s
            (Keras's ``convnext_tiny.h5`` loads with ``weights=``).
        name: the module's name (default ``"convnext_tiny"``).
    """
    with scope("ConvNeXtTiny", name, "convnext_tiny") as names:
        who = names.who
        head = Head.checked(who, include_top, pooling, classes, classifier_activation)
        image = input_layer(x, who, rank=4, what="images [batch, height, width, channels]")
        h = image
        if include_preprocessing and image.shape[-1] == 3:
            h = (h - MEAN) / STD
        h = layer("Conv2D.v1")(h, DIMS[0], 4, strides=4, padding="valid", name=names("stem_conv"))
        h = _layer_norm(h, names, "stem_layernorm")
        for stage, (depth, dim) in enumerate(zip(DEPTHS, DIMS, strict=True)):
            if stage:
                h = _layer_norm(h, names, f"downsampling_layernorm_{stage - 1}")
                h = layer("Conv2D.v1")(
                    h,
                    dim,
                    2,
                    strides=2,
                    padding="valid",
                    name=names(f"downsampling_conv_{stage - 1}"),
                )
            for block in range(depth):
                h = convnext_block(h, dim, names, f"stage_{stage}_block_{block}")
        if include_top:
            h = layer("GlobalAvgPool.v1")(h, name=names("head_gap"))
            out = head.dense(_layer_norm(h, names, "head_layernorm"), names, "head_dense")
        else:
            if pooling == "avg":
                h = layer("GlobalAvgPool.v1")(h, name=names("avg_pool"))
            elif pooling == "max":
                h = layer("GlobalMaxPool.v1")(h, name=names("max_pool"))
            out = _layer_norm(h, names, "layer_normalization")
        from tensorweave_models.heads import keras_application

        counterpart = keras_application(
            "ConvNeXtTiny", image, head, include_preprocessing=include_preprocessing
        )
        return finish(image, out, names, weights=weights, keras_counterpart=counterpart)
