"""VGG16 against ``keras.applications.VGG16``: parameters, output shapes, predictions with
the same weights."""

from __future__ import annotations

import keras
import pytest
from twmodels_helpers import assert_predicts_as_keras, assert_same_as_keras, count, images

import tensorweave as tw

SHAPE = (32, 32, 3)


@pytest.mark.parametrize(
    "head",
    [{"include_top": True, "classes": 10}, {"include_top": False, "pooling": "avg"}],
    ids=["top", "avg"],
)
def test_vgg16_is_keras_vgg16(head):
    ours = tw.models["VGG16.v1"](SHAPE, **head)
    assert_same_as_keras(ours, keras.applications.VGG16(weights=None, input_shape=SHAPE, **head))


def test_vgg16_predicts_as_keras_vgg16_with_its_weights():
    keras_net = keras.applications.VGG16(weights=None, input_shape=SHAPE, include_top=False)
    ours = tw.models["VGG16.v1"](SHAPE, include_top=False)
    assert_predicts_as_keras(keras_net, ours, images(SHAPE))


def test_the_imagenet_network_has_138_million_parameters():
    # Keras's VGG16 at 224x224 with the top: 138,357,544 (the published figure); counted
    # without running, from the layers' shapes (building it would allocate 553 MB)
    convs = [(3, 64), (64, 64), (64, 128), (128, 128), (128, 256)] + [(256, 256)] * 2
    convs += [(256, 512)] + [(512, 512)] * 5
    dense = [(7 * 7 * 512, 4096), (4096, 4096), (4096, 1000)]
    total = sum(9 * i * o + o for i, o in convs) + sum(i * o + o for i, o in dense)
    ours = tw.models["VGG16.v1"](SHAPE, include_top=False)
    assert total == 138_357_544
    assert count(ours) == sum(9 * i * o + o for i, o in convs)


def test_the_top_needs_a_fixed_image_size():
    with pytest.raises(tw.ShapeError, match="include_top the image size must be fixed"):
        tw.models["VGG16.v1"]((None, None, 3))
    assert tw.models["VGG16.v1"]((None, None, 3), include_top=False, width=0.125).shape == (
        None,
        None,
        None,
        64,
    )
