"""Initializers: registered names, shapes, statistics, distinct layers, seeded runs."""

import functools

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave_layers import initializers as init

NAMES = [
    "zeros",
    "ones",
    "constant",
    "uniform",
    "normal",
    "glorot_uniform",
    "glorot_normal",
    "he_uniform",
    "he_normal",
    "orthogonal",
    "identity",
]


@pytest.mark.parametrize("name", NAMES)
def test_registered_and_shaped(name):
    fn = tw.initializers[f"tensorweave-layers:{name}.v1"]
    assert tw.initializers.get(name) is fn
    value = fn((6, 4), tf.float32)
    assert value.shape.as_list() == [6, 4] and value.dtype == tf.float32


def test_constant_values():
    np.testing.assert_array_equal(init.zeros((2, 3)).numpy(), np.zeros((2, 3)))
    np.testing.assert_array_equal(init.ones((2,)).numpy(), np.ones(2))
    np.testing.assert_array_equal(init.constant((2, 2), value=3.5).numpy(), np.full((2, 2), 3.5))
    np.testing.assert_array_equal(init.identity((2, 3), gain=2.0).numpy(), 2 * np.eye(2, 3))
    assert init.zeros((3,), tf.int64).dtype == tf.int64


def test_fans():
    assert init.fans(()) == (1.0, 1.0)
    assert init.fans((5,)) == (5.0, 5.0)
    assert init.fans((3, 7)) == (3.0, 7.0)
    assert init.fans((3, 3, 4, 8)) == (36.0, 72.0)


def test_statistics_match_the_definitions():
    tf.random.set_seed(1)
    shape = (400, 600)
    limit = np.sqrt(6 / 1000)
    gu = init.glorot_uniform(shape).numpy()
    assert np.abs(gu).max() <= limit and np.isclose(gu.std(), limit / np.sqrt(3), rtol=0.02)
    gn = init.glorot_normal(shape).numpy()
    assert np.isclose(gn.std(), np.sqrt(2 / 1000), rtol=0.03)
    hu = init.he_uniform(shape).numpy()
    assert np.abs(hu).max() <= np.sqrt(6 / 400)
    hn = init.he_normal(shape).numpy()
    assert np.isclose(hn.std(), np.sqrt(2 / 400), rtol=0.03)
    n = init.normal(shape, stddev=0.5).numpy()
    assert np.isclose(n.std(), 0.5, rtol=0.02) and abs(n.mean()) < 0.01
    u = init.uniform(shape, minval=1.0, maxval=2.0).numpy()
    assert u.min() >= 1.0 and u.max() < 2.0


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (2, 2, 3, 4)])
def test_orthogonal(shape):
    q = init.orthogonal(shape, gain=2.0).numpy().reshape(-1, shape[-1])
    small = min(q.shape)
    gram = q.T @ q if q.shape[0] >= q.shape[1] else q @ q.T
    np.testing.assert_allclose(gram, 4.0 * np.eye(small), atol=1e-4)


def test_errors():
    with pytest.raises(TypeError, match=r"glorot_uniform.*int32"):
        init.glorot_uniform((2, 2), tf.int32)
    with pytest.raises(ValueError, match="2-D"):
        init.identity((2, 2, 2))
    with pytest.raises(ValueError, match="rank >= 2"):
        init.orthogonal((3,))


@pytest.mark.parametrize("name", ["uniform", "normal", "glorot_uniform", "he_normal", "orthogonal"])
def test_distinct_layers_differ_and_seeded_runs_repeat(name):
    def two_layers():
        x = tw.Input(n_units=4)
        a = tw.layers["tensorweave-layers:Linear.v1"](x, 3, w_init=name)
        b = tw.layers["tensorweave-layers:Linear.v1"](x, 3, w_init=name)
        return a.weights.numpy(), b.weights.numpy()

    tf.random.set_seed(7)
    a1, b1 = two_layers()
    tf.random.set_seed(7)
    a2, b2 = two_layers()
    assert not np.allclose(a1, b1), "two layers got the same initial weights"
    np.testing.assert_array_equal(a1, a2)
    np.testing.assert_array_equal(b1, b2)


def test_partial_initializer_in_a_layer():
    x = tw.Input(n_units=2)
    layer = tw.layers["tensorweave-layers:Linear.v1"](
        x, 2, w_init=functools.partial(init.constant, value=0.25)
    )
    np.testing.assert_array_equal(layer.weights.numpy(), np.full((2, 2), 0.25))
