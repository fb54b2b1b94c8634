"""Add: plain, weighted and learned-weight sums against numpy; shape errors."""

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

rng = np.random.default_rng(2)


def _inputs(n, shape=(None, 3)):
    return [tw.Input(batch_shape=shape, name=f"x{i}") for i in range(n)]


def test_plain_and_weighted():
    xs = _inputs(3)
    vs = [rng.standard_normal((2, 3)).astype("float32") for _ in xs]
    plain = tw.layers["tensorweave-layers:Add.v1"](*xs)
    np.testing.assert_allclose(plain(*vs).numpy(), sum(vs), rtol=1e-6)
    weighted = tw.layers["tensorweave-layers:Add.v1"](*xs, weights=[1.0, -2.0, 0.5])
    np.testing.assert_allclose(
        weighted(*vs).numpy(), vs[0] - 2 * vs[1] + 0.5 * vs[2], rtol=1e-5, atol=1e-6
    )
    assert not plain.variables and not weighted.variables


def test_learned_weights_train():
    xs = _inputs(2)
    layer = tw.layers["tensorweave-layers:Add.v1"](*xs, weights=[0.5, 2.0], learn_weights=True)
    vs = [np.ones((1, 3), "float32"), np.full((1, 3), 2.0, "float32")]
    np.testing.assert_allclose(layer(*vs).numpy(), [[4.5] * 3])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(layer(*vs))
    np.testing.assert_allclose(tape.gradient(loss, layer.weights).numpy(), [3.0, 6.0])


def test_dynamic_dims_merge():
    a = tw.Input(batch_shape=(None, None, 3))
    b = tw.Input(shape=(4, None))
    assert tw.layers["tensorweave-layers:Add.v1"](a, b).shape == (None, 4, 3)


def test_errors():
    a, b = tw.Input(n_units=3, name="a"), tw.Input(n_units=4, name="b")
    with pytest.raises(
        tw.ShapeError, match=r"(?s)Add 'sum'.*'a' \(None, 3\).*'b' \(None, 4\).*Fix"
    ):
        tw.layers["tensorweave-layers:Add.v1"](a, b, name="sum")
    with pytest.raises(ValueError, match="2 weights for 3 inputs"):
        tw.layers["tensorweave-layers:Add.v1"](*_inputs(3), weights=[1.0, 2.0])
    with pytest.raises(TypeError, match="dtypes"):
        tw.layers["tensorweave-layers:Add.v1"](a, tw.Input(n_units=3, dtype=tf.float64))
    with pytest.raises(tw.ShapeError, match="ToDense"):
        tw.layers["tensorweave-layers:Add.v1"](a, tw.Input(n_units=3, sparse=True))
