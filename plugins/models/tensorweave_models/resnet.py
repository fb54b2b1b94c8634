"""ResNet v1 (He et al., 2015): ``ResNet18``, ``ResNet34``, ``ResNet50``, ``ResNet101``.

``ResNet50``/``ResNet101`` are ``keras.applications.ResNet50``/``ResNet101`` layer for
layer: bottleneck blocks (1x1, 3x3, 1x1 convolutions with bias, the stride on the first
1x1, batch norms with epsilon 1.001e-5), the same parameter count, output shape and layer
names, so ``from_keras`` (or ``weights="resnet50.h5"``) loads their weights.
``ResNet18``/``ResNet34`` have no Keras application: they are the published basic-block
networks as torchvision builds them (two 3x3 convolutions without bias per block, a
strided 3x3 convolution padded by one on each side, 1x1 projections where the shape
changes), 11,689,512 and 21,797,672 trainable parameters for 1000 classes; they share
Keras's stem (``conv1_pad``, ``conv1_conv``…) and naming.

``width`` multiplies every layer's filters (``1.0``: the published network), for small
images and quick runs.

>>> import tensorweave as tw
>>> net = tw.models["ResNet18.v1"]((32, 32, 3), classes=10, width=0.125)
>>> net.shape, net.inner_graph.nodes[2].name
((None, 10), 'resnet18/conv1_conv')
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import tensorweave as tw
from tensorweave_models.build import (
    Scope,
    check_width,
    finish,
    input_layer,
    layer,
    scaled,
    scope,
)
from tensorweave_models.heads import Head, image_head

__all__ = ["ResNet18", "ResNet34", "ResNet50", "ResNet101"]

IMAGES = "images [batch, height, width, channels]"
Block = Callable[..., tw.Layer]


def _bn(x: tw.Layer, names: Scope, leaf: str, epsilon: float, momentum: float) -> tw.Layer:
    return layer("BatchNorm.v1")(x, epsilon=epsilon, momentum=momentum, name=names(leaf))


def _relu(x: tw.Layer, names: Scope, leaf: str) -> tw.Layer:
    return layer("Activation.v1")(x, "relu", name=names(leaf))


def _conv(
    x: tw.Layer, filters: int, size: int, names: Scope, leaf: str, *, strides: int = 1, **kw: Any
) -> tw.Layer:
    kw.setdefault("padding", "valid")
    return layer("Conv2D.v1")(x, filters, size, strides=strides, name=names(leaf), **kw)


def bottleneck_block(
    x: tw.Layer, filters: int, stride: int, shortcut: bool, names: Scope, prefix: str
) -> tw.Layer:
    """Keras's ``residual_block_v1``: 1x1 (strided), 3x3, 1x1 to ``4 * filters``."""
    eps, mom = 1.001e-5, 0.99
    if shortcut:
        sc = _conv(x, 4 * filters, 1, names, f"{prefix}_0_conv", strides=stride)
        sc = _bn(sc, names, f"{prefix}_0_bn", eps, mom)
    else:
        sc = x
    h = _conv(x, filters, 1, names, f"{prefix}_1_conv", strides=stride)
    h = _relu(_bn(h, names, f"{prefix}_1_bn", eps, mom), names, f"{prefix}_1_relu")
    h = _conv(h, filters, 3, names, f"{prefix}_2_conv", padding="same")
    h = _relu(_bn(h, names, f"{prefix}_2_bn", eps, mom), names, f"{prefix}_2_relu")
    h = _conv(h, 4 * filters, 1, names, f"{prefix}_3_conv")
    h = _bn(h, names, f"{prefix}_3_bn", eps, mom)
    h = layer("Add.v1")(sc, h, name=names(f"{prefix}_add"))
    return _relu(h, names, f"{prefix}_out")


def basic_block(
    x: tw.Layer, filters: int, stride: int, shortcut: bool, names: Scope, prefix: str
) -> tw.Layer:
    """torchvision's ``BasicBlock``: two 3x3 convolutions without bias (the first strided,
    padded by one on each side), a 1x1 projection where the shape changes."""
    eps, mom = 1e-5, 0.9
    if shortcut:
        sc = _conv(x, filters, 1, names, f"{prefix}_0_conv", strides=stride, add_bias=False)
        sc = _bn(sc, names, f"{prefix}_0_bn", eps, mom)
    else:
        sc = x
    h = x
    if stride > 1:
        h = layer("ZeroPadding2D.v1")(h, 1, name=names(f"{prefix}_1_pad"))
    h = _conv(
        h,
        filters,
        3,
        names,
        f"{prefix}_1_conv",
        strides=stride,
        padding="valid" if stride > 1 else "same",
        add_bias=False,
    )
    h = _relu(_bn(h, names, f"{prefix}_1_bn", eps, mom), names, f"{prefix}_1_relu")
    h = _conv(h, filters, 3, names, f"{prefix}_2_conv", padding="same", add_bias=False)
    h = _bn(h, names, f"{prefix}_2_bn", eps, mom)
    h = layer("Add.v1")(sc, h, name=names(f"{prefix}_add"))
    return _relu(h, names, f"{prefix}_out")


def _resnet(
    builder: str,
    default: str,
    x: tw.Layer | Sequence[int | None],
    *,
    bottleneck: bool,
    repeats: Sequence[int],
    include_top: bool,
    weights: str | None,
    pooling: str | None,
    classes: int,
    classifier_activation: Any,
    width: float,
    name: str | None,
) -> tw.Module:
    with scope(builder, name, default) as names:
        who = names.who
        head = Head.checked(who, include_top, pooling, classes, classifier_activation)
        width = check_width(width, who)
        image = input_layer(x, who, rank=4, what=IMAGES)
        h = layer("ZeroPadding2D.v1")(image, 3, name=names("conv1_pad"))
        h = _conv(h, scaled(64, width), 7, names, "conv1_conv", strides=2, add_bias=bottleneck)
        eps, mom = (1.001e-5, 0.99) if bottleneck else (1e-5, 0.9)
        h = _relu(_bn(h, names, "conv1_bn", eps, mom), names, "conv1_relu")
        h = layer("ZeroPadding2D.v1")(h, 1, name=names("pool1_pad"))
        h = layer("MaxPool2D.v1")(h, 3, strides=2, name=names("pool1_pool"))
        block: Block = bottleneck_block if bottleneck else basic_block
        for stage, blocks in enumerate(repeats):
            filters = scaled(64 * 2**stage, width)
            for i in range(blocks):
                stride = 2 if stage > 0 and i == 0 else 1
                out = 4 * filters if bottleneck else filters
                shortcut = i == 0 and (stride > 1 or h.shape[-1] != out)
                h = block(h, filters, stride, shortcut, names, f"conv{stage + 2}_block{i + 1}")
        out = image_head(h, names, head)
        counterpart = None
        if bottleneck and width == 1.0:
            from tensorweave_models.heads import keras_application

            counterpart = keras_application(builder, image, head)
        return finish(image, out, names, weights=weights, keras_counterpart=counterpart)


@tw.checks_keywords
def ResNet18(
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
    """ResNet-18 (basic blocks ``[2, 2, 2, 2]``) on ``x``, as a ``tw.Module``.

    Args:
        x: images ``[batch, height, width, channels]`` (a layer), or one image's shape.
        include_top: end in a global average pool and a dense layer of ``classes``.
        weights: a local ``.keras``/``.h5`` file of a Keras model with this architecture's
            layer names (``from_keras``); ``None``: random initial weights.
        pooling: without the top: ``None`` (the last feature map), ``"avg"`` or ``"max"``.
        classes: the number of classes of the top layer.
        classifier_activation: the top layer's activation (``None``: logits).
        width: a multiplier of every layer's filters (``1.0``: the published network).
        name: the module's name (default ``"resnet18"``).
    """
    return _resnet(
        "ResNet18",
        "resnet18",
        x,
        bottleneck=False,
        repeats=(2, 2, 2, 2),
        include_top=include_top,
        weights=weights,
        pooling=pooling,
        classes=classes,
        classifier_activation=classifier_activation,
        width=width,
        name=name,
    )


@tw.checks_keywords
def ResNet34(
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
    """ResNet-34 (basic blocks ``[3, 4, 6, 3]``) on ``x``; the options are ``ResNet18``'s."""
    return _resnet(
        "ResNet34",
        "resnet34",
        x,
        bottleneck=False,
        repeats=(3, 4, 6, 3),
        include_top=include_top,
        weights=weights,
        pooling=pooling,
        classes=classes,
        classifier_activation=classifier_activation,
        width=width,
        name=name,
    )


@tw.checks_keywords
def ResNet50(
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
    """ResNet-50 (bottleneck blocks ``[3, 4, 6, 3]``), ``keras.applications.ResNet50``'s
    network; the options are ``ResNet18``'s, and ``weights`` may also be Keras's weights
    file (``resnet50_weights_tf_dim_ordering_tf_kernels.h5``, downloaded beforehand)."""
    return _resnet(
        "ResNet50",
        "resnet50",
        x,
        bottleneck=True,
        repeats=(3, 4, 6, 3),
        include_top=include_top,
        weights=weights,
        pooling=pooling,
        classes=classes,
        classifier_activation=classifier_activation,
        width=width,
        name=name,
    )


@tw.checks_keywords
def ResNet101(
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
    """ResNet-101 (bottleneck blocks ``[3, 4, 23, 3]``), ``keras.applications.ResNet101``'s
    network; the options are ``ResNet50``'s."""
    return _resnet(
        "ResNet101",
        "resnet101",
        x,
        bottleneck=True,
        repeats=(3, 4, 23, 3),
        include_top=include_top,
        weights=weights,
        pooling=pooling,
        classes=classes,
        classifier_activation=classifier_activation,
        width=width,
        name=name,
    )
