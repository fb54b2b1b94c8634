"""DropConnect: dropped weights in training, the plain linear map in inference."""

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

DropConnect = tw.layers["DropConnect.v1"]
RNG = np.random.default_rng(4)


def test_inference_is_the_linear_map():
    x = tw.Input(n_units=4, name="x")
    dc = DropConnect(x, 3, probability=0.5)
    dc.bias.assign([1.0, 2.0, 3.0])
    infer = dc.reuse_with(x, training=False)
    assert infer.weights is dc.weights
    value = RNG.standard_normal((5, 4)).astype("float32")
    want = value @ dc.weights.numpy() + [1.0, 2.0, 3.0]
    np.testing.assert_allclose(tw.compile(infer)(value).numpy(), want, rtol=1e-5, atol=1e-5)


def test_training_drops_weights_not_inputs_and_keeps_bias():
    tf.random.set_seed(5)
    x = tw.Input(n_units=40, name="x")
    dc = DropConnect(x, 30, probability=0.25)
    run = tw.compile(dc)
    rows = run(np.eye(40, dtype="float32")).numpy()  # x = I and b = 0: the rows are dropped W
    w = dc.weights.numpy()
    dropped = rows == 0.0
    np.testing.assert_allclose(rows[~dropped], w[~dropped] / 0.75, rtol=1e-5)
    assert 0.18 < dropped.mean() < 0.32
    dc.bias.assign(tf.fill([30], 7.0))
    np.testing.assert_array_equal(run(np.zeros((3, 40), "float32")).numpy(), 7.0)  # b kept


def test_gradients_only_reach_kept_weights():
    x = tw.Input(n_units=20)
    dc = DropConnect(x, 10, probability=0.5, add_bias=False)
    value = tf.ones((3, 20))
    with tf.GradientTape() as tape:
        w_used = dc.dropped_weights()
        y = tf.reduce_sum(tf.matmul(value, w_used))
    grad = tape.gradient(y, dc.weights).numpy()
    np.testing.assert_array_equal(grad == 0, w_used.numpy() == 0)


def test_sparse_input_equals_dense():
    x = tw.Input(n_units=6, sparse=True)
    dc = DropConnect(x, 2, training=False)
    dense = RNG.standard_normal((3, 6)).astype("float32") * (RNG.random((3, 6)) > 0.5)
    got = dc.compute(tf.sparse.from_dense(dense)).numpy()
    np.testing.assert_allclose(
        got, dense @ dc.weights.numpy() + dc.bias.numpy(), rtol=1e-5, atol=1e-6
    )


def test_errors():
    with pytest.raises(tw.ShapeError, match=r"DropConnect.*\(None, 2, 3\).*SeqMap"):
        DropConnect(tw.Input(shape=(None, 2, 3)), 4)
    dc = DropConnect(tw.Input(n_units=3), 4)
    with pytest.raises(tw.ShapeError, match="3 features"):
        dc.reuse_with(tw.Input(n_units=5))
    with pytest.raises(ValueError, match="probability"):
        DropConnect(tw.Input(n_units=3), 4, probability=-0.1)
