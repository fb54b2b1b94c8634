"""EfficientNetV2B0 against ``keras.applications.EfficientNetV2B0``: parameters, output
shapes and predictions with the weights of a saved Keras file."""

from __future__ import annotations

import keras
import pytest
from twmodels_helpers import (
    assert_loads_keras_file,
    assert_predicts_as_keras,
    assert_same_as_keras,
    images,
)

import tensorweave as tw

SHAPE = (32, 32, 3)


@pytest.mark.parametrize(
    "head",
    [
        {"include_top": True, "classes": 10},
        {"include_top": False, "pooling": "avg"},
    ],
    ids=["top", "avg"],
)
def test_efficientnet_v2_b0_is_keras_efficientnet_v2_b0(head):
    ours = tw.models["EfficientNetV2B0.v1"](SHAPE, **head)
    want = keras.applications.EfficientNetV2B0(weights=None, input_shape=SHAPE, **head)
    assert_same_as_keras(ours, want)


def test_efficientnet_v2_b0_loads_a_saved_keras_file(tmp_path):
    options = {"classes": 10, "classifier_activation": None}
    assert_loads_keras_file(
        keras.applications.EfficientNetV2B0(weights=None, input_shape=SHAPE, **options),
        lambda **kw: tw.models["EfficientNetV2B0.v1"](SHAPE, **options, **kw),
        tmp_path,
        images(SHAPE, scale=255.0),
        atol=1e-4,
    )


def test_one_channel_images_are_rescaled_to_minus_one_one_as_keras():
    keras_net = keras.applications.EfficientNetV2B0(
        weights=None, input_shape=(32, 32, 1), include_top=False, pooling="avg"
    )
    ours = tw.models["EfficientNetV2B0.v1"]((32, 32, 1), include_top=False, pooling="avg")
    assert_same_as_keras(ours, keras_net)
    assert_predicts_as_keras(keras_net, ours, images((32, 32, 1), scale=255.0), atol=1e-4)


def test_stochastic_depth_drops_whole_residual_branches_in_training_only():
    net = tw.models["EfficientNetV2B0.v1"](SHAPE, include_top=False)
    drops = [n for n in net.inner_graph.nodes if n.name.endswith("_drop")]
    assert drops and all(d.noise_shape == (None, 1, 1, 1) for d in drops)
    rates = [d.rate for d in drops]
    assert rates == sorted(rates) and rates[0] > 0 and rates[-1] < 0.2
