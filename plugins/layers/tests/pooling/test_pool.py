"""Pooling layers against Keras 3 and numpy, and their errors."""

import keras
import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given
from hypothesis import strategies as st

import tensorweave as tw

RNG = np.random.default_rng(1)


@pytest.mark.parametrize(
    ("name", "ref", "kwargs"),
    [
        ("MaxPool2D.v1", keras.layers.MaxPooling2D, {"pool_size": 2}),
        ("AvgPool2D.v1", keras.layers.AveragePooling2D, {"pool_size": (2, 3), "padding": "same"}),
        ("MaxPool2D.v1", keras.layers.MaxPooling2D, {"pool_size": 3, "strides": 1}),
        ("MaxPool1D.v1", keras.layers.MaxPooling1D, {"pool_size": 2, "padding": "same"}),
        ("AvgPool1D.v1", keras.layers.AveragePooling1D, {"pool_size": 3, "strides": 2}),
    ],
)
def test_pooling_matches_keras(name, ref, kwargs):
    two_d = "2D" in name
    shape = (None, 7, 5, 3) if two_d else (None, 7, 3)
    layer = tw.layers[name](tw.Input(batch_shape=shape), **kwargs)
    value = RNG.standard_normal((2, *shape[1:])).astype("float32")
    got = layer.compute(tf.constant(value)).numpy()
    keras_kwargs = {"pool_size": kwargs["pool_size"], "padding": kwargs.get("padding", "valid")}
    if "strides" in kwargs:
        keras_kwargs["strides"] = kwargs["strides"]
    np.testing.assert_allclose(got, ref(**keras_kwargs)(value).numpy(), rtol=1e-6, atol=1e-6)
    assert got.shape[1:] == layer.shape[1:]


def test_pool1d_numpy():
    value = np.arange(12.0, dtype="float32").reshape(1, 6, 2)
    x = tw.Input(batch_shape=(None, None, 2))
    got = tw.layers["AvgPool1D.v1"](x, 2).compute(tf.constant(value)).numpy()
    np.testing.assert_allclose(got, value.reshape(1, 3, 2, 2).mean(axis=2))


def test_global_pooling_numpy():
    value = RNG.standard_normal((2, 3, 4, 5)).astype("float32")
    x = tw.Input(shape=(3, 4, 5))
    gmax = tw.layers["GlobalMaxPool.v1"](x)
    gavg = tw.layers["GlobalAvgPool.v1"](x)
    assert gmax.shape == gavg.shape == (None, 5)
    np.testing.assert_allclose(gmax.compute(value).numpy(), value.max(axis=(1, 2)), rtol=1e-6)
    np.testing.assert_allclose(gavg.compute(value).numpy(), value.mean(axis=(1, 2)), rtol=1e-5)


def test_pooling_errors():
    with pytest.raises(tw.ShapeError, match=r"MaxPool2D.*rank 4.*\(None, 5, 3\).*MaxPool1D"):
        tw.layers["MaxPool2D.v1"](tw.Input(shape=(5, 3)))
    with pytest.raises(tw.ShapeError, match="smaller than the window"):
        tw.layers["MaxPool1D.v1"](tw.Input(shape=(2, 3)), 3)
    with pytest.raises(tw.ShapeError, match=r"GlobalAvgPool.*\(None, 4\)"):
        tw.layers["GlobalAvgPool.v1"](tw.Input(n_units=4))


@given(
    length=st.integers(1, 10),
    pool=st.integers(1, 4),
    stride=st.integers(1, 3),
    padding=st.sampled_from(["same", "valid"]),
    name=st.sampled_from(["MaxPool1D.v1", "AvgPool1D.v1", "MaxPool2D.v1", "AvgPool2D.v1"]),
)
def test_pool_output_shape_property(length, pool, stride, padding, name):
    spatial = (length, length + 1) if "2D" in name else (length,)
    x = tw.Input(batch_shape=(None, *spatial, 2))
    if padding == "valid" and length < pool:
        with pytest.raises(tw.ShapeError, match="smaller than the window"):
            tw.layers[name](x, pool, strides=stride, padding=padding)
        return
    layer = tw.layers[name](x, pool, strides=stride, padding=padding)
    out = layer.compute(tf.zeros((1, *spatial, 2)))
    assert tuple(out.shape[1:]) == layer.shape[1:]
