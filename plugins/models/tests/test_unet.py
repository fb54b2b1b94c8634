"""UNet: the parameters of a Keras U-Net built from the same blocks, the input's size kept
for every depth, and sizes that cannot halve refused."""

from __future__ import annotations

import keras
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from twmodels_helpers import assert_same_as_keras

import tensorweave as tw


def keras_unet(shape, classes, depth, filters=64):
    """Ronneberger et al.'s U-Net from Keras layers, convolutions padded."""
    L = keras.layers
    image = keras.Input(shape)
    h, skips = image, []
    for level in range(depth):
        for _ in range(2):
            h = L.Conv2D(filters * 2**level, 3, padding="same", activation="relu")(h)
        skips.append(h)
        h = L.MaxPooling2D(2)(h)
    for _ in range(2):
        h = L.Conv2D(filters * 2**depth, 3, padding="same", activation="relu")(h)
    for level in reversed(range(depth)):
        h = L.Conv2DTranspose(filters * 2**level, 2, strides=2)(h)
        h = L.Concatenate()([skips[level], h])
        for _ in range(2):
            h = L.Conv2D(filters * 2**level, 3, padding="same", activation="relu")(h)
    return keras.Model(image, L.Conv2D(classes, 1, activation="softmax")(h))


def test_unet_has_the_parameters_of_the_papers_network():
    # 64 filters, four levels, one channel in, two classes out: 31,030,658 parameters
    ours = tw.models["UNet.v1"]((64, 64, 1), classes=2)
    assert_same_as_keras(ours, keras_unet((64, 64, 1), 2, 4))
    assert ours.shape == (None, 64, 64, 2)


@settings(max_examples=8, deadline=None)
@given(depth=st.integers(1, 3), rows=st.integers(1, 3), cols=st.integers(1, 3))
def test_the_output_keeps_the_inputs_height_and_width(depth, rows, cols):
    size = (rows * 2**depth, cols * 2**depth)
    net = tw.models["UNet.v1"]((*size, 3), classes=4, depth=depth, width=0.0625)
    assert net.shape == (None, *size, 4)


def test_batch_norm_sits_between_each_convolution_and_its_relu():
    net = tw.models["UNet.v1"]((16, 16, 1), depth=2, width=0.125, batch_norm=True)
    kinds = [type(n).__name__ for n in net.inner_graph.nodes][1:4]
    assert kinds == ["Conv2D", "BatchNorm", "Activation"]
    conv = net.inner_graph.nodes[1]
    assert not hasattr(conv.state, "bias")


def test_sizes_that_cannot_halve_depth_times_are_refused_with_the_fix():
    with pytest.raises(tw.ShapeError, match=r"multiples of 2 \*\* depth = 16.*Fix"):
        tw.models["UNet.v1"]((24, 32, 1))
    assert tw.models["UNet.v1"]((None, None, 1), width=0.0625).shape == (None, None, None, 2)
