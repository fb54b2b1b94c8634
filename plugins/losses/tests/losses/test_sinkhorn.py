"""Sinkhorn loss against exact optimal transport (scipy) and a numpy Sinkhorn."""

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

import tensorweave as tw
from tensorweave_losses.losses.sinkhorn import sinkhorn


def np_sinkhorn(x, y, eps, n_iter):
    """Plain (non-log) Sinkhorn scaling with uniform marginals."""
    c = ((x[:, None, :] - y[None, :, :]) ** 2).sum(-1)
    k = np.exp(-c / eps)
    a, b = np.full(len(x), 1 / len(x)), np.full(len(y), 1 / len(y))
    v = np.ones(len(y))
    for _ in range(n_iter):
        u = a / (k @ v)
        v = b / (k.T @ u)
    return (u[:, None] * k * v[None, :] * c).sum()


@settings(max_examples=10)
@given(st.integers(2, 5), st.integers(1, 3), st.integers(0, 2**31 - 1))
def test_small_epsilon_approaches_exact_transport(n, d, seed):
    rng = np.random.default_rng(seed)
    x, y = rng.standard_normal((2, n, d))
    c = ((x[:, None] - y[None]) ** 2).sum(-1)
    rows, cols = linear_sum_assignment(c)
    exact = c[rows, cols].mean()
    eps = 0.01 * c.max()  # relative to the cost scale, so 500 iterations converge
    got = float(sinkhorn(x, y, epsilon=eps, n_iter=500))
    # the entropic bias is at most about eps * log(n * m)
    assert got == pytest.approx(exact, abs=eps * np.log(n * n) + 1e-3)


@settings(max_examples=10)
@given(st.integers(2, 5), st.integers(2, 5), st.integers(0, 2**31 - 1))
def test_matches_numpy_sinkhorn_with_different_sizes(n, m, seed):
    rng = np.random.default_rng(seed)
    x, y = rng.standard_normal((n, 2)), rng.standard_normal((m, 2))
    want = np_sinkhorn(x, y, eps=0.5, n_iter=50)
    np.testing.assert_allclose(sinkhorn(x, y, epsilon=0.5, n_iter=50), want, rtol=1e-4)


def test_batched_with_weights_and_gradients():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4, 2)).astype("float32")
    y = tf.Variable(rng.standard_normal((3, 4, 2)).astype("float32"))
    per_example = sinkhorn(x, y, reduction="none")
    assert per_example.shape == (3,)
    for i in range(3):
        np.testing.assert_allclose(per_example[i], sinkhorn(x[i], y[i]), rtol=1e-5)
    with tf.GradientTape() as tape:
        value = sinkhorn(x, y, sample_weight=[1.0, 0.0, 2.0])
    np.testing.assert_allclose(value, (per_example[0] + 2 * per_example[2]) / 3, rtol=1e-5)
    assert np.isfinite(tape.gradient(value, y)).all()


def test_far_apart_clouds_stay_finite_with_small_epsilon():
    value = sinkhorn([[0.0], [1.0]], [[1e2], [1e2 + 1]], epsilon=1.0, n_iter=50)
    np.testing.assert_allclose(value, 1e4, rtol=1e-3)


def test_bad_inputs():
    with pytest.raises(tw.ShapeError, match="point clouds"):
        sinkhorn(np.ones(3), np.ones(3))
    with pytest.raises(tw.ShapeError, match="different dimensions"):
        sinkhorn(np.ones((3, 2)), np.ones((3, 3)))
    with pytest.raises(ValueError, match="unknown cost"):
        sinkhorn(np.ones((3, 2)), np.ones((3, 2)), cost="cosine")


def test_as_layer():
    x, y = tw.Input(n_units=2), tw.Input(n_units=2)
    node = sinkhorn(x, y, epsilon=0.2, n_iter=10, cost="l1")
    a = np.array([[0.0, 0.0], [1.0, 1.0]], "float32")
    b = np.array([[0.5, 0.0], [2.0, 1.0]], "float32")
    np.testing.assert_allclose(
        tw.compile(node)(a, b), sinkhorn(a, b, epsilon=0.2, n_iter=10, cost="l1"), rtol=1e-5
    )
