"""The adapted state is the layer's variables: a checkpoint and a SavedModel carry it, a
``reuse_with`` shares it; adapting the wrong data is refused with the fix."""

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave_layers import AdaptError


def _adapted():
    norm = tw.layers["Normalization.v1"](tw.Input(n_units=2, name="x"))
    norm.adapt(np.array([[1.0, 10.0], [3.0, 30.0], [5.0, 50.0]], "float32"))
    return norm


def test_a_checkpoint_restores_the_adapted_statistics(tmp_path):
    norm = _adapted()
    path = tf.train.Checkpoint(layer=norm).write(str(tmp_path / "ckpt"))
    fresh = tw.layers["Normalization.v1"](tw.Input(n_units=2))
    assert fresh.mean.numpy().tolist() == [0.0, 0.0]
    tf.train.Checkpoint(layer=fresh).read(path).assert_consumed()
    np.testing.assert_allclose(fresh.mean.numpy(), [3.0, 30.0])
    np.testing.assert_allclose(fresh.variance.numpy(), [8 / 3, 800 / 3], rtol=1e-6)
    assert int(fresh.count.numpy()) == 3


def test_a_saved_model_applies_the_adapted_layers(tmp_path):
    x = tw.Input(n_units=1, name="x")
    norm = tw.layers["Normalization.v1"](x)
    norm.adapt(np.arange(10.0).reshape(-1, 1))
    bins = tw.layers["Discretization.v1"](x, num_bins=2)
    bins.adapt(np.arange(10.0).reshape(-1, 1))
    f = tw.compile([norm, bins])
    holder = tf.Module()
    holder.graph = f.graph
    holder.serve = f.function
    tf.saved_model.save(holder, str(tmp_path / "model"))
    del holder, f
    loaded = tf.saved_model.load(str(tmp_path / "model"))
    value = np.array([[0.0], [9.0]], "float32")
    got_norm, got_bins = loaded.serve(value)
    np.testing.assert_allclose(got_norm.numpy(), (value - 4.5) / np.sqrt(8.25), rtol=1e-6)
    assert got_bins.numpy().tolist() == [[0], [1]]


def test_reuse_shares_the_adapted_state():
    norm = _adapted()
    again = norm.reuse_with(tw.Input(n_units=2, name="y"))
    assert again.mean is norm.mean
    norm.adapt(np.ones((4, 2)))
    assert again.mean.numpy().tolist() == [1.0, 1.0]


def test_adapting_no_data_names_the_layer_and_the_fix():
    norm = tw.layers["Normalization.v1"](tw.Input(n_units=2), name="age")
    with pytest.raises(AdaptError, match=r"Normalization 'age'\.adapt got no data.*Fix"):
        norm.adapt(np.zeros((0, 2)))
    with pytest.raises(AdaptError, match="no data"):
        norm.adapt(tf.data.Dataset.from_tensor_slices(np.zeros((0, 2))).batch(4))
    assert isinstance(AdaptError("x"), tw.TensorweaveError)


def test_strings_are_refused_by_normalization():
    with pytest.raises(tw.InputValueError, match="StringLookup"):
        tw.layers["Normalization.v1"](tw.Input(n_units=1, dtype="string"))
    norm = tw.layers["Normalization.v1"](tw.Input(n_units=1))
    with pytest.raises(tw.InputValueError, match="not numbers"):
        norm.adapt(np.array([["a"], ["b"]]))


def test_adapt_refuses_data_of_the_wrong_shape():
    norm = tw.layers["Normalization.v1"](tw.Input(n_units=2))
    with pytest.raises(AdaptError, match="rank 2"):
        norm.adapt(np.zeros(5))
    with pytest.raises(tw.ShapeError, match="does not fit"):
        norm.adapt(np.zeros((5, 3)))


def test_options_are_checked():
    x = tw.Input(n_units=2)
    with pytest.raises(tw.ArgumentError, match="both mean and variance"):
        tw.layers["Normalization.v1"](x, mean=1.0)
    with pytest.raises(tw.ArgumentError, match="does not fit"):
        tw.layers["Normalization.v1"](x, mean=[1.0, 2.0, 3.0], variance=1.0)
    with pytest.raises(tw.ArgumentError, match="exactly one"):
        tw.layers["Discretization.v1"](x)
    with pytest.raises(tw.ArgumentError, match="output_mode"):
        tw.layers["Discretization.v1"](x, num_bins=3, output_mode="tf_idf")
    with pytest.raises(AdaptError, match="nothing to adapt"):
        tw.layers["Discretization.v1"](x, bin_boundaries=[0.0]).adapt(np.zeros((3, 2)))
    with pytest.raises(AdaptError, match="too few values"):
        tw.layers["Discretization.v1"](x, num_bins=5).adapt(np.zeros((1, 2)))
