"""EfficientNetV2-B0 (Tan & Le, 2021), ``keras.applications.EfficientNetV2B0`` layer for
layer.

A strided 3x3 stem, three stages of *fused* MBConv blocks (a 3x3 expansion convolution
and a 1x1 projection) and three of MBConv blocks (1x1 expansion, 3x3 depthwise
convolution, squeeze-and-excitation, 1x1 projection), swish activations, batch norms with
momentum ``0.9``, and residual connections with *stochastic depth* (a whole example's
residual branch dropped at training time, at a rate growing with depth up to
``drop_connect_rate``), a 1x1 convolution to 1280 channels, and the top (with a dropout of
``dropout``). ``include_preprocessing`` (Keras's default) rescales pixels in
``[0, 255]`` and normalizes them with ImageNet's statistics. Layer names are Keras's
(``block1a_project_conv``…), so ``from_keras`` loads its weights.

>>> import tensorweave as tw
>>> net = tw.models["EfficientNetV2B0.v1"]((32, 32, 3), include_top=False, pooling="avg")
>>> net.shape
(None, 1280)
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

import tensorweave as tw
from tensorweave_models.build import Scope, check_rate, finish, input_layer, layer, scope
from tensorweave_models.heads import Head, image_head

__all__ = ["EfficientNetV2B0", "mbconv_block"]

#: (kernel, repeats, in, out, expansion, se_ratio, stride, fused) of B0's six stages
STAGES = (
    (3, 1, 32, 16, 1, 0.0, 1, True),
    (3, 2, 16, 32, 4, 0.0, 2, True),
    (3, 2, 32, 48, 4, 0.0, 2, True),
    (3, 3, 48, 96, 4, 0.25, 2, False),
    (3, 5, 96, 112, 6, 0.25, 1, False),
    (3, 8, 112, 192, 6, 0.25, 2, False),
)
TOP_FILTERS = 1280
MEAN = np.array([0.485, 0.456, 0.406], "float32")
STD = np.array([0.229, 0.224, 0.225], "float32")


def _conv_init() -> Any:
    """Keras's ``CONV_KERNEL_INITIALIZER``: variance scaling 2.0, fan out, truncated normal."""
    scaling = tw.initializers["tensorweave-layers:variance_scaling.v1"]
    return functools.partial(scaling, scale=2.0, mode="fan_out", distribution="truncated_normal")


def _conv(x: tw.Layer, filters: int, size: int, names: Scope, leaf: str, **kw: Any) -> tw.Layer:
    kw.setdefault("add_bias", False)
    kw.setdefault("padding", "same")
    return layer("Conv2D.v1")(x, filters, size, w_init=_conv_init(), name=names(leaf), **kw)


def _bn(x: tw.Layer, names: Scope, leaf: str) -> tw.Layer:
    return layer("BatchNorm.v1")(x, momentum=0.9, name=names(leaf))


def _act(x: tw.Layer, names: Scope, leaf: str) -> tw.Layer:
    return layer("Activation.v1")(x, "swish", name=names(leaf))


def _squeeze_excite(x: tw.Layer, filters: int, reduced: int, names: Scope, p: str) -> tw.Layer:
    """Squeeze (average each channel) and excite (scale it by a gate of those averages)."""
    se = layer("AdaptiveAvgPool2D.v1")(x, 1, name=names(f"{p}se_squeeze"))
    se = _conv(se, reduced, 1, names, f"{p}se_reduce", activation="swish", add_bias=True)
    se = _conv(se, filters, 1, names, f"{p}se_expand", activation="sigmoid", add_bias=True)
    return x * se


def mbconv_block(
    x: tw.Layer,
    *,
    kernel: int,
    out: int,
    expansion: int,
    se_ratio: float,
    stride: int,
    fused: bool,
    drop_rate: float,
    names: Scope,
    prefix: str,
) -> tw.Layer:
    """One (fused) MBConv block of Keras's ``efficientnet_v2`` on ``x``."""
    channels = int(x.shape[-1])  # type: ignore[arg-type]
    filters = channels * expansion
    p = prefix
    h = x
    if fused:
        if expansion != 1:
            h = _conv(h, filters, kernel, names, f"{p}expand_conv", strides=stride)
            h = _act(_bn(h, names, f"{p}expand_bn"), names, f"{p}expand_activation")
    else:
        if expansion != 1:
            h = _conv(h, filters, 1, names, f"{p}expand_conv")
            h = _act(_bn(h, names, f"{p}expand_bn"), names, f"{p}expand_activation")
        h = layer("DepthwiseConv2D.v1")(
            h,
            kernel,
            strides=stride,
            add_bias=False,
            w_init=_conv_init(),
            name=names(f"{p}dwconv2"),
            padding="same",
        )
        h = _act(_bn(h, names, f"{p}bn"), names, f"{p}activation")
    if 0 < se_ratio <= 1:
        h = _squeeze_excite(h, filters, max(1, int(channels * se_ratio)), names, p)
    one_by_one = not fused or expansion != 1
    h = _conv(
        h,
        out,
        1 if one_by_one else kernel,
        names,
        f"{p}project_conv",
        strides=1 if one_by_one else stride,
    )
    h = _bn(h, names, f"{p}project_bn")
    if fused and expansion == 1:
        h = _act(h, names, f"{p}project_activation")
    if stride == 1 and channels == out:
        if drop_rate:
            h = layer("Dropout.v1")(
                h, drop_rate, noise_shape=(None, 1, 1, 1), name=names(f"{p}drop")
            )
        h = layer("Add.v1")(h, x, name=names(f"{p}add"))
    return h


@tw.checks_keywords
def EfficientNetV2B0(
    x: tw.Layer | Sequence[int | None],
    *,
    include_preprocessing: bool = True,
    include_top: bool = True,
    weights: str | None = None,
    pooling: str | None = None,
    classes: int = 1000,
    classifier_activation: Any = "softmax",
    dropout: float = 0.2,
    drop_connect_rate: float = 0.2,
    name: str | None = None,
) -> tw.Module:
    """EfficientNetV2-B0 on ``x``, as a ``tw.Module``.

    Args:
        x: images ``[batch, height, width, channels]`` (a layer), or one image's shape.
        include_preprocessing: rescale 3-channel pixels in ``[0, 255]`` and normalize them
            with ImageNet's statistics (other channel counts: to ``[-1, 1]``), as Keras.
        include_top, weights, pooling, classes, classifier_activation: as ``ResNet50``'s
            (Keras's ``efficientnetv2-b0.h5`` loads with ``weights=``).
        dropout: the dropout before the top's dense layer.
        drop_connect_rate: the largest stochastic-depth rate (the last block's).
        name: the module's name (default ``"efficientnetv2-b0"``).
    """
    with scope("EfficientNetV2B0", name, "efficientnetv2-b0") as names:
        who = names.who
        head = Head.checked(who, include_top, pooling, classes, classifier_activation)
        dropout = check_rate(dropout, who, "dropout")
        drop_connect_rate = check_rate(drop_connect_rate, who, "drop_connect_rate")
        image = input_layer(x, who, rank=4, what="images [batch, height, width, channels]")
        h = image
        if include_preprocessing:
            h = (h / 255.0 - MEAN) / STD if image.shape[-1] == 3 else h / 128.0 - 1.0
        h = _conv(h, STAGES[0][2], 3, names, "stem_conv", strides=2)
        h = _act(_bn(h, names, "stem_bn"), names, "stem_activation")
        total = float(sum(stage[1] for stage in STAGES))
        b = 0
        for i, (kernel, repeats, _, out, expansion, se_ratio, stride, fused) in enumerate(STAGES):
            for j in range(repeats):
                h = mbconv_block(
                    h,
                    kernel=kernel,
                    out=out,
                    expansion=expansion,
                    se_ratio=se_ratio,
                    stride=stride if j == 0 else 1,
                    fused=fused,
                    drop_rate=drop_connect_rate * b / total,
                    names=names,
                    prefix=f"block{i + 1}{chr(j + 97)}_",
                )
                b += 1
        h = _conv(h, TOP_FILTERS, 1, names, "top_conv")
        h = _act(_bn(h, names, "top_bn"), names, "top_activation")

        def top_dropout(pooled: tw.Layer) -> tw.Layer:
            if not dropout:
                return pooled
            return layer("Dropout.v1")(pooled, dropout, name=names("top_dropout"))

        out = image_head(h, names, head, before_dense=top_dropout)
        from tensorweave_models.heads import keras_application

        counterpart = keras_application(
            "EfficientNetV2B0",
            image,
            head,
            include_preprocessing=include_preprocessing,
        )
        return finish(image, out, names, weights=weights, keras_counterpart=counterpart)
