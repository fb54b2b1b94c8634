"""SpectralNorm: what it wraps, its state, the training switch, errors."""

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw


def test_it_wraps_a_built_layer_and_normalizes_its_weights():
    x = tw.Input(n_units=4, value=np.ones((1, 4), "float32"))
    linear = tw.layers["Linear.v1"](x, 3)
    linear.weights.assign(linear.weights * 10.0)
    sn = tw.layers["SpectralNorm.v1"](x, linear, power_iterations=30)
    sn()
    assert sn.layer.weights is linear.weights
    assert np.linalg.svd(linear.weights.numpy(), compute_uv=False)[0] == pytest.approx(1.0, 1e-4)


def test_u_is_state_and_moves_only_in_training(tmp_path):
    x = tw.Input(shape=(4, 4, 2), value=np.ones((1, 4, 4, 2), "float32"))
    sn = tw.layers["SpectralNorm.v1"](x, "Conv2D.v1", n_units=3)
    assert not sn.u.trainable and sn.u.shape.as_list() == [1, 3]
    assert {v.name for v in sn.trainable_variables} == {v.name for v in sn.layer.variables}
    inference = tw.with_options(sn, training=False)
    u, kernel = sn.u.numpy(), sn.kernel.numpy()
    inference()
    np.testing.assert_array_equal(sn.u.numpy(), u)
    np.testing.assert_array_equal(sn.kernel.numpy(), kernel)
    sn()
    assert not np.array_equal(sn.u.numpy(), u)
    path = tf.train.Checkpoint(layer=sn).write(str(tmp_path / "ckpt"))
    assert any("u" in name.split("/") for name, _ in tf.train.list_variables(path))


def test_a_kernel_of_zeros_is_left_alone():
    x = tw.Input(n_units=2, value=np.ones((1, 2), "float32"))
    sn = tw.layers["SpectralNorm.v1"](x, "Linear.v1", n_units=2, w_init="zeros")
    sn()
    assert not np.isnan(sn.kernel.numpy()).any()


def test_errors():
    x = tw.Input(n_units=2)
    with pytest.raises(tw.ArgumentError, match="no kernel to normalize"):
        tw.layers["SpectralNorm.v1"](x, "LayerNorm.v1")
    with pytest.raises(tw.ShapeError, match="one-input layers"):
        tw.layers["SpectralNorm.v1"](x, tw.layers["Add.v1"](x, x))


def test_a_wrapped_built_layer_survives_reuse_and_with_options():
    x = tw.Input(n_units=3, value=np.ones((2, 3), "float32"))
    linear = tw.layers["Linear.v1"](x, 2)
    sn = tw.layers["SpectralNorm.v1"](x, linear)
    head = tw.Lambda(tf.identity, sn)
    inference = tw.with_options(head, training=False)
    node = inference.inputs[0]
    assert node.training is False and node.layer.weights is linear.weights
    np.testing.assert_allclose(inference().numpy(), linear().numpy(), rtol=1e-6)
