"""ConvNeXtTiny against ``keras.applications.ConvNeXtTiny``: parameters, output shapes and
predictions with the same weights (its grouped convolutions become depthwise ones)."""

from __future__ import annotations

import keras
import pytest
from twmodels_helpers import assert_predicts_as_keras, assert_same_as_keras, images

import tensorweave as tw

SHAPE = (32, 32, 3)


@pytest.mark.parametrize(
    "head",
    [
        {"include_top": True, "classes": 10},
        {"include_top": False, "pooling": None},
        {"include_top": False, "pooling": "max", "include_preprocessing": False},
    ],
    ids=["top", "features", "max"],
)
def test_convnext_tiny_is_keras_convnext_tiny(head):
    ours = tw.models["ConvNeXtTiny.v1"](SHAPE, **head)
    want = keras.applications.ConvNeXtTiny(weights=None, input_shape=SHAPE, **head)
    assert_same_as_keras(ours, want)


@pytest.mark.slow  # a 28M-parameter network built twice (~8 s)
def test_convnext_tiny_predicts_as_keras_with_its_weights():
    options = {"include_top": True, "classes": 10, "classifier_activation": None}
    keras_net = keras.applications.ConvNeXtTiny(weights=None, input_shape=SHAPE, **options)
    ours = tw.models["ConvNeXtTiny.v1"](SHAPE, **options)
    # pixels in [0, 255]: the built-in preprocessing normalizes them
    assert_predicts_as_keras(keras_net, ours, images(SHAPE, scale=255.0), atol=1e-4)


def test_without_top_the_unnamed_keras_layer_norm_pairs_in_order():
    keras_net = keras.applications.ConvNeXtTiny(
        weights=None, input_shape=SHAPE, include_top=False, pooling="avg"
    )
    ours = tw.models["ConvNeXtTiny.v1"](SHAPE, include_top=False, pooling="avg")
    assert_predicts_as_keras(keras_net, ours, images(SHAPE, scale=255.0), atol=1e-4)
