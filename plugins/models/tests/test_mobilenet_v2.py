"""MobileNetV2 against ``keras.applications.MobileNetV2``: parameters, output shapes and
predictions with the weights of a saved Keras file (whole model or weights only)."""

from __future__ import annotations

import keras
import pytest
from twmodels_helpers import assert_loads_keras_file, assert_same_as_keras, images

import tensorweave as tw
from tensorweave_models.mobilenet_v2 import make_divisible

SHAPE = (32, 32, 3)


@pytest.mark.parametrize(
    "options",
    [
        {"include_top": True, "classes": 10},
        {"include_top": False, "pooling": "max"},
        {"include_top": False, "alpha": 0.35},
        {"include_top": True, "alpha": 1.4, "classes": 7},
    ],
    ids=["top", "max", "alpha0.35", "alpha1.4"],
)
def test_mobilenet_v2_is_keras_mobilenet_v2(options):
    ours = tw.models["MobileNetV2.v1"](SHAPE, **options)
    want = keras.applications.MobileNetV2(weights=None, input_shape=SHAPE, **options)
    assert_same_as_keras(ours, want)


@pytest.mark.parametrize("file", ["model.keras", "model.weights.h5"])
def test_mobilenet_v2_loads_a_saved_keras_file(tmp_path, file):
    options = {"alpha": 0.35, "classes": 5, "classifier_activation": None}
    assert_loads_keras_file(
        keras.applications.MobileNetV2(weights=None, input_shape=SHAPE, **options),
        lambda **kw: tw.models["MobileNetV2.v1"](SHAPE, **options, **kw),
        tmp_path,
        images(SHAPE),
        name=file,
    )


def test_strided_blocks_pad_as_keras_correct_pad():
    net = tw.models["MobileNetV2.v1"]((33, 32, 3), alpha=0.35, include_top=False)
    pads = [n for n in net.inner_graph.nodes if n.name.endswith("block_1_pad")]
    # 17x16 into the first strided block: one row before and after, a column after only
    assert pads[0].shape[1:3] == (19, 17)


def test_make_divisible_rounds_to_multiples_of_eight_and_keeps_90_percent():
    assert [make_divisible(v) for v in (4, 12, 13.6, 21, 1280 * 1.4)] == [8, 16, 16, 24, 1792]
