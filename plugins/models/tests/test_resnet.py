"""ResNet50/101 against ``keras.applications``; ResNet18/34 against torchvision's published
parameter counts and a Keras network built from the same blocks."""

from __future__ import annotations

import keras
import pytest
from twmodels_helpers import (
    assert_loads_keras_file,
    assert_predicts_as_keras,
    assert_same_as_keras,
    count,
    images,
)

import tensorweave as tw

SHAPE = (32, 32, 3)
HEADS = [
    {"include_top": True, "classes": 10},
    {"include_top": False, "pooling": None},
    {"include_top": False, "pooling": "avg"},
]


@pytest.mark.parametrize("head", HEADS, ids=["top", "features", "avg"])
def test_resnet50_is_keras_resnet50(head):
    ours = tw.models["ResNet50.v1"](SHAPE, **head)
    assert_same_as_keras(ours, keras.applications.ResNet50(weights=None, input_shape=SHAPE, **head))


@pytest.mark.parametrize("head", HEADS[:1], ids=["top"])
def test_resnet101_is_keras_resnet101(head):
    ours = tw.models["ResNet101.v1"](SHAPE, **head)
    assert_same_as_keras(
        ours, keras.applications.ResNet101(weights=None, input_shape=SHAPE, **head)
    )


def test_resnet50_predicts_as_keras_resnet50_with_its_weights():
    keras_net = keras.applications.ResNet50(
        weights=None, input_shape=SHAPE, classes=10, classifier_activation=None
    )
    ours = tw.models["ResNet50.v1"](SHAPE, classes=10, classifier_activation=None)
    assert_predicts_as_keras(keras_net, ours, images(SHAPE))


@pytest.mark.slow  # a 42M-parameter network built twice (~10 s)
def test_resnet101_predicts_as_keras_resnet101_with_its_weights():
    keras_net = keras.applications.ResNet101(weights=None, input_shape=SHAPE, include_top=False)
    ours = tw.models["ResNet101.v1"](SHAPE, include_top=False)
    assert_predicts_as_keras(keras_net, ours, images(SHAPE))


@pytest.mark.parametrize(
    ("name", "published"), [("ResNet18.v1", 11_689_512), ("ResNet34.v1", 21_797_672)]
)
def test_resnet18_and_34_have_torchvisions_trainable_parameter_counts(name, published):
    # torchvision.models.resnet18/34: 1000 classes; the batch norms' moving statistics
    # are buffers there, non-trainable variables here
    assert count(tw.models[name](SHAPE), trainable=True) == published


def keras_basic_resnet(repeats, shape=SHAPE, classes=10):
    """The basic-block ResNet from Keras layers, named as ours (a Keras reference for
    ResNet18/34, which keras.applications lacks)."""
    L = keras.layers

    def bn(x, name):
        return L.BatchNormalization(epsilon=1e-5, momentum=0.9, name=name)(x)

    image = keras.Input(shape)
    x = L.ZeroPadding2D(3)(image)
    x = L.Conv2D(64, 7, strides=2, use_bias=False, name="conv1_conv")(x)
    x = L.Activation("relu")(bn(x, "conv1_bn"))
    x = L.MaxPooling2D(3, strides=2)(L.ZeroPadding2D(1)(x))
    for stage, blocks in enumerate(repeats):
        filters = 64 * 2**stage
        for i in range(blocks):
            p = f"conv{stage + 2}_block{i + 1}"
            stride = 2 if stage and i == 0 else 1
            shortcut = x
            if stride > 1:
                shortcut = L.Conv2D(filters, 1, strides=2, use_bias=False, name=f"{p}_0_conv")(x)
                shortcut = bn(shortcut, f"{p}_0_bn")
                h = L.ZeroPadding2D(1)(x)
                h = L.Conv2D(filters, 3, strides=2, use_bias=False, name=f"{p}_1_conv")(h)
            else:
                h = L.Conv2D(filters, 3, padding="same", use_bias=False, name=f"{p}_1_conv")(x)
            h = L.Activation("relu")(bn(h, f"{p}_1_bn"))
            h = L.Conv2D(filters, 3, padding="same", use_bias=False, name=f"{p}_2_conv")(h)
            x = L.Activation("relu")(L.Add()([shortcut, bn(h, f"{p}_2_bn")]))
    x = L.GlobalAveragePooling2D()(x)
    return keras.Model(image, L.Dense(classes, name="predictions")(x))


def test_resnet18_is_the_keras_basic_block_network_and_loads_its_saved_file(tmp_path):
    keras_net = keras_basic_resnet((2, 2, 2, 2))
    build = tw.models["ResNet18.v1"]
    assert_same_as_keras(build(SHAPE, classes=10), keras_net)
    assert_loads_keras_file(
        keras_net,
        lambda **kw: build(SHAPE, classes=10, classifier_activation=None, name="again", **kw),
        tmp_path,
        images(SHAPE),
    )


def test_resnet34_has_the_keras_basic_block_networks_count():
    ours = tw.models["ResNet34.v1"](SHAPE, classes=10)
    assert count(ours) == keras_basic_resnet((3, 4, 6, 3)).count_params()


def test_width_scales_every_layers_filters():
    narrow = tw.models["ResNet50.v1"](SHAPE, include_top=False, width=0.25)
    assert narrow.shape == (None, 1, 1, 512)
    conv = next(n for n in narrow.inner_graph.nodes if n.name.endswith("conv2_block1_2_conv"))
    assert conv.shape[-1] == 16


def test_an_input_layer_is_used_as_given_and_the_module_takes_it():
    x = tw.Input(shape=(64, 64, 3), name="pixels")
    net = tw.models["ResNet18.v1"](x, classes=5, width=0.125, name="body")
    assert net.inputs == (x,) and net.name == "body" and net.shape == (None, 5)
    assert all(n.name.startswith("body/") for n in net.inner_graph.nodes if n is not x)


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        ({"pooling": "mean"}, "pooling must be None, 'avg' or 'max'"),
        ({"classes": 0}, "classes must be a positive integer"),
        ({"width": 0}, "width must be a positive number"),
        ({"include_top": "yes"}, "include_top must be True or False"),
    ],
)
def test_bad_options_are_refused_naming_the_builder(options, problem):
    with pytest.raises(tw.ArgumentError, match=problem) as caught:
        tw.models["ResNet18.v1"](SHAPE, **options)
    assert "ResNet18 'resnet18'" in str(caught.value)


def test_inputs_that_are_not_images_are_refused_with_the_fix():
    with pytest.raises(tw.ShapeError, match=r"expects images .* Fix"):
        tw.models["ResNet18.v1"](tw.Input(n_units=64))
    with pytest.raises(tw.ShapeError, match="one example's shape has 3 sizes"):
        tw.models["ResNet18.v1"]((32, 32))
    with pytest.raises(tw.ArgumentError, match=r"a tw\.Layer or one example's shape"):
        tw.models["ResNet18.v1"]("image")
