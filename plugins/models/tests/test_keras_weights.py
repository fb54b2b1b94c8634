"""``from_keras`` and ``load_weights``: pairing by name, then unnamed layers in order;
reshaped depthwise kernels; a model that does not fit leaves the module untouched and says
which layers; files that cannot be read."""

from __future__ import annotations

import keras
import numpy as np
import pytest
from twmodels_helpers import predict, randomize

import tensorweave as tw
from tensorweave_models import WeightsError, from_keras, load_weights

SMALL = {"alpha": 0.35, "classes": 4, "classifier_activation": None}
SHAPE = (32, 32, 3)


def keras_small():
    return keras.applications.MobileNetV2(weights=None, input_shape=SHAPE, **SMALL)


def snapshot(module):
    return [v.numpy().copy() for v in module.variables]


def test_a_keras_model_that_does_not_fit_changes_nothing_and_names_the_layers():
    keras_net = keras_small()
    randomize(keras_net)
    ours = tw.models["MobileNetV2.v1"](SHAPE, alpha=0.35, classes=5)
    before = snapshot(ours)
    with pytest.raises(WeightsError) as caught:
        from_keras(keras_net, ours)
    message = str(caught.value)
    assert "predictions -> mobilenetv2/predictions" in message
    assert "is (1280, 4)" in message and "Fix: build the module with the options" in message
    assert all(np.array_equal(a, b) for a, b in zip(before, snapshot(ours), strict=True))


def test_layers_without_a_partner_are_listed():
    keras_net = keras_small()
    ours = tw.models["MobileNetV2.v1"](SHAPE, alpha=0.35, include_top=False)
    with pytest.raises(WeightsError, match=r"Keras layers with no partner: \['predictions'\]"):
        from_keras(keras_net, ours)


def test_unnamed_layers_pair_in_order_and_kernels_reshape_across_axes_of_one():
    inputs = keras.Input((4, 4, 3))
    h = keras.layers.Conv2D(3, 3, padding="same", groups=3)(inputs)  # automatic names
    keras_net = keras.Model(inputs, keras.layers.Dense(2)(h))
    randomize(keras_net)
    x = tw.Input(shape=(4, 4, 3))
    h = tw.layers["DepthwiseConv2D.v1"](x, 3, name="net/depthwise", padding="same")
    ours = tw.Module(x, tw.layers["Linear.v1"](h, 2, name="net/dense"))
    from_keras(keras_net, ours)
    value = np.random.default_rng(0).standard_normal((2, 4, 4, 3)).astype("float32")
    np.testing.assert_allclose(predict(ours, value), keras_net(value), rtol=1e-5, atol=1e-5)


def test_from_keras_wants_a_module():
    with pytest.raises(tw.ArgumentError, match=r"module must be a tw\.Module"):
        from_keras(keras_small(), tw.layers["Linear.v1"](tw.Input(n_units=2), 2))


def test_a_missing_or_foreign_file_is_refused_with_the_fix(tmp_path):
    ours = tw.models["MobileNetV2.v1"](SHAPE, **SMALL)
    with pytest.raises(tw.ArgumentError, match=r"does not exist.*nothing is downloaded"):
        load_weights(ours, tmp_path / "nowhere.keras")
    (tmp_path / "weights.npz").write_bytes(b"")
    with pytest.raises(tw.ArgumentError, match=r"must be a \.keras or \.h5 file"):
        load_weights(ours, tmp_path / "weights.npz")
    (tmp_path / "broken.keras").write_bytes(b"not a zip")
    with pytest.raises(WeightsError, match="cannot read Keras weights from"):
        tw.models["MobileNetV2.v1"](SHAPE, weights=str(tmp_path / "broken.keras"), **SMALL)


def test_weights_only_files_need_a_builder_with_a_keras_application(tmp_path):
    keras_net = keras_small()
    keras_net.save_weights(tmp_path / "w.weights.h5")
    with pytest.raises(WeightsError, match="cannot read Keras weights"):
        tw.models["ResNet18.v1"](SHAPE, width=0.125, weights=str(tmp_path / "w.weights.h5"))
