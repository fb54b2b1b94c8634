"""A model built in Python as the README teaches saves and loads back with the same
predictions: arithmetic on nodes, ``tw.op``/``tw.ops``, indexing, a variable in an op and
``KerasLayer.v1`` (written as Keras serializes it, read in Keras's safe mode)."""

from __future__ import annotations

import json

import keras
import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave.config import ConfigError
from tensorweave_train import Model, load_model
from tensorweave_train.runs.saving import NoConfigFormWarning

RNG = np.random.default_rng(0)


def _same_after_loading(model: Model, xs: dict, tmp_path) -> dict:
    where = model.save(tmp_path / "saved")
    np.testing.assert_array_equal(load_model(where).predict(xs), model.predict(xs))
    return json.loads((where / "config.json").read_text())


def test_arithmetic_on_nodes_and_tf_ops_save(tmp_path) -> None:
    x = tw.Input(n_units=4, name="x")
    mean, std = np.array([0.1, 0.2, 0.3, 0.4], "float32"), 2.0
    h = tw.layers["FC.v1"]((x - mean) / std, n_units=8, activation="relu")
    y = tw.layers["Linear.v1"](h, n_units=2)
    z = (y * 2.0 + 1.0)[:, :1]
    e = tw.ops.erfc(y) @ tf.Variable(RNG.normal(size=(2, 2)).astype("float32"))
    out = tw.op("tf.concat")([z, e, -y], axis=-1)
    model = Model(inputs=x, outputs=out)
    config = _same_after_loading(model, {"x": RNG.random((6, 4), "float32")}, tmp_path)
    functions = {n.get("function") for n in config["model"]["nodes"].values()}
    assert {"tf.math.subtract", "tf.math.truediv", "tw.getitem", "tf.concat"} <= functions


def test_keras_layers_save_as_keras_serializes_them(tmp_path) -> None:
    x = tw.Input(shape=(5, 3), name="x")
    h = tw.layers["KerasLayer.v1"](x, layer=keras.layers.LSTM(16))
    y = tw.layers["KerasLayer.v1"](h, layer=lambda: keras.layers.Dense(1))
    config = _same_after_loading(
        Model(inputs=x, outputs=y), {"x": RNG.random((4, 5, 3), "float32")}, tmp_path
    )
    layers = [n["layer"] for n in config["model"]["nodes"].values() if "layer" in n]
    assert [c["class_name"] for c in layers] == ["LSTM", "Dense"]


def test_a_keras_lambda_falls_back_to_a_saved_model_naming_why(tmp_path) -> None:
    x = tw.Input(n_units=3, name="x")
    z = tw.layers["KerasLayer.v1"](x, layer=keras.layers.Lambda(lambda t: t * 2), name="twice")
    with pytest.warns(NoConfigFormWarning) as caught:
        where = Model(inputs=x, outputs=z).save(tmp_path / "saved")
    message = str(caught[0].message)
    assert "model.nodes.twice: KerasLayer 'twice'" in message
    assert "Python lambda" in message and "Fix:" in message and "safe_mode=False" not in message
    assert (where / "saved_model").is_dir() and not (where / "config.json").exists()
    with pytest.raises(ConfigError):  # a config alone still names it
        Model(inputs=x, outputs=z).get_config()
