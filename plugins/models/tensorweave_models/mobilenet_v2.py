"""MobileNetV2 (Sandler et al., 2018), ``keras.applications.MobileNetV2`` layer for layer.

Inverted residual blocks: a 1x1 expansion (six times the channels), a 3x3 depthwise
convolution and a linear 1x1 projection, with ReLU6 and batch norms (epsilon ``1e-3``,
momentum ``0.999``), a residual connection where the shape allows; a strided block pads
as Keras's ``correct_pad`` does. ``alpha`` (Keras's name) multiplies the channels; the
layer names are Keras's, so ``from_keras`` loads its weights.

>>> import tensorweave as tw
>>> net = tw.models["MobileNetV2.v1"]((32, 32, 3), alpha=0.35, include_top=False, pooling="avg")
>>> net.shape
(None, 1280)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorweave as tw
from tensorweave_models.build import Scope, check_width, finish, input_layer, layer, scope
from tensorweave_models.heads import Head, image_head

__all__ = ["MobileNetV2", "make_divisible"]

#: (filters, stride, expansion, repeats) of the inverted residual stages
STAGES = (
    (16, 1, 1, 1),
    (24, 2, 6, 2),
    (32, 2, 6, 3),
    (64, 2, 6, 4),
    (96, 1, 6, 3),
    (160, 2, 6, 3),
    (320, 1, 6, 1),
)


def make_divisible(value: float, divisor: int = 8) -> int:
    """The nearest multiple of ``divisor`` (at least it), not below 90% of ``value``
    (Keras's ``_make_divisible``).

    >>> make_divisible(32 * 0.35), make_divisible(16 * 1.0)
    (16, 16)
    """
    new = max(divisor, int(value + divisor / 2) // divisor * divisor)
    return new + divisor if new < 0.9 * value else new


def _bn_relu6(x: tw.Layer, names: Scope, bn: str, relu: str | None) -> tw.Layer:
    h = layer("BatchNorm.v1")(x, epsilon=1e-3, momentum=0.999, name=names(bn))
    return h if relu is None else layer("Activation.v1")(h, "relu6", name=names(relu))


def _correct_pad(x: tw.Layer) -> tuple[tuple[int, int], tuple[int, int]]:
    """Keras's ``correct_pad`` for a 3x3 kernel: one more row/column after than before on
    even sizes (and on unknown ones)."""
    adjust = [1 if d is None else 1 - d % 2 for d in x.shape[1:3]]
    return ((1 - adjust[0], 1), (1 - adjust[1], 1))


def inverted_residual_block(
    x: tw.Layer, filters: int, stride: int, expansion: int, block_id: int, names: Scope
) -> tw.Layer:
    """Keras's ``_inverted_res_block`` (``filters`` already scaled by ``alpha``)."""
    channels = int(x.shape[-1])  # type: ignore[arg-type]
    prefix = f"block_{block_id}_" if block_id else "expanded_conv_"
    h = x
    if block_id:
        h = layer("Conv2D.v1")(
            h,
            expansion * channels,
            1,
            add_bias=False,
            name=names(f"{prefix}expand"),
            padding="same",
        )
        h = _bn_relu6(h, names, f"{prefix}expand_BN", f"{prefix}expand_relu")
    if stride == 2:
        h = layer("ZeroPadding2D.v1")(h, _correct_pad(h), name=names(f"{prefix}pad"))
    h = layer("DepthwiseConv2D.v1")(
        h,
        3,
        strides=stride,
        padding="same" if stride == 1 else "valid",
        add_bias=False,
        name=names(f"{prefix}depthwise"),
    )
    h = _bn_relu6(h, names, f"{prefix}depthwise_BN", f"{prefix}depthwise_relu")
    h = layer("Conv2D.v1")(
        h, filters, 1, add_bias=False, name=names(f"{prefix}project"), padding="same"
    )
    h = _bn_relu6(h, names, f"{prefix}project_BN", None)
    if channels == filters and stride == 1:
        return layer("Add.v1")(x, h, name=names(f"{prefix}add"))
    return h


@tw.checks_keywords
def MobileNetV2(
    x: tw.Layer | Sequence[int | None],
    *,
    alpha: float = 1.0,
    include_top: bool = True,
    weights: str | None = None,
    pooling: str | None = None,
    classes: int = 1000,
    classifier_activation: Any = "softmax",
    name: str | None = None,
) -> tw.Module:
    """MobileNetV2 on ``x``, as a ``tw.Module``.

    Args:
        x: images ``[batch, height, width, channels]`` (a layer), or one image's shape.
        alpha: the width multiplier (Keras's ``alpha``): channels of every layer times
            ``alpha``, rounded to multiples of 8.
        include_top, weights, pooling, classes, classifier_activation: as ``ResNet50``'s
            (Keras's ``mobilenet_v2_weights_tf_dim_ordering_tf_kernels_1.0_224.h5`` loads
            with ``weights=``).
        name: the module's name (default ``"mobilenetv2"``).
    """
    with scope("MobileNetV2", name, "mobilenetv2") as names:
        who = names.who
        head = Head.checked(who, include_top, pooling, classes, classifier_activation)
        alpha = check_width(alpha, who, "alpha")
        image = input_layer(x, who, rank=4, what="images [batch, height, width, channels]")
        h = layer("Conv2D.v1")(
            image,
            make_divisible(32 * alpha),
            3,
            strides=2,
            add_bias=False,
            name=names("Conv1"),
            padding="same",
        )
        h = _bn_relu6(h, names, "bn_Conv1", "Conv1_relu")
        block_id = 0
        for filters, stride, expansion, repeats in STAGES:
            for i in range(repeats):
                h = inverted_residual_block(
                    h,
                    make_divisible(int(filters * alpha)),
                    stride if i == 0 else 1,
                    expansion,
                    block_id,
                    names,
                )
                block_id += 1
        last = make_divisible(1280 * alpha) if alpha > 1.0 else 1280
        h = layer("Conv2D.v1")(h, last, 1, add_bias=False, name=names("Conv_1"), padding="same")
        h = _bn_relu6(h, names, "Conv_1_bn", "out_relu")
        out = image_head(h, names, head)
        from tensorweave_models.heads import keras_application

        counterpart = keras_application("MobileNetV2", image, head, alpha=alpha)
        return finish(image, out, names, weights=weights, keras_counterpart=counterpart)
