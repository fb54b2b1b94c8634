"""Distances against numpy; safe gradients at zero; sparse inputs; as layers."""

import keras
import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorweave as tw
from tensorweave_losses.distances import (
    cosine_distance,
    cosine_similarity,
    euclidean_distance,
    manhattan_distance,
    pairwise_euclidean_distance,
    sparse_cosine_distance,
    torus_l1_distance,
)


@settings(max_examples=15)
@given(st.integers(1, 5), st.integers(1, 5), st.integers(0, 2**31 - 1))
def test_against_numpy(n, d, seed):
    rng = np.random.default_rng(seed)
    x, y = rng.standard_normal((2, n, d)).astype("float32")
    cos = (x * y).sum(-1) / (np.linalg.norm(x, axis=-1) * np.linalg.norm(y, axis=-1))
    np.testing.assert_allclose(cosine_distance(x, y), 1 - cos, atol=1e-5)
    np.testing.assert_allclose(euclidean_distance(x, y), np.linalg.norm(x - y, axis=-1), rtol=1e-5)
    np.testing.assert_allclose(manhattan_distance(x, y), np.abs(x - y).sum(-1), rtol=1e-5)
    m = y[: max(1, n - 1)]
    want = np.linalg.norm(x[:, None] - m[None], axis=-1)
    np.testing.assert_allclose(pairwise_euclidean_distance(x, m), want, rtol=1e-5, atol=1e-6)
    mask = rng.random((n, d)) > 0.5
    sp = tf.sparse.from_dense(np.where(mask, x, 0.0))
    xs = np.where(mask, x, 0.0)
    norm = np.linalg.norm(xs, axis=-1) * np.linalg.norm(y, axis=-1)
    want = 1 - np.divide((xs * y).sum(-1), norm, out=np.zeros(n, "float32"), where=norm > 0)
    np.testing.assert_allclose(sparse_cosine_distance(sp, y), want, atol=1e-5)
    a, b = rng.random((2, n, d))
    gap = np.abs(a - b)
    np.testing.assert_allclose(torus_l1_distance(a, b), np.minimum(gap, 1 - gap).sum(-1), atol=1e-6)


def test_zero_distance_has_finite_gradients():
    x = tf.Variable([[1.0, 2.0]])
    with tf.GradientTape(persistent=True) as tape:
        e = euclidean_distance(x, [[1.0, 2.0]])
        p = pairwise_euclidean_distance(x, [[1.0, 2.0]])
        c = cosine_distance(x, [[0.0, 0.0]])
    for value in (e, p, c):
        assert np.isfinite(tape.gradient(value, x)).all()
    assert float(c[0]) == 1.0


def test_torus_with_period_and_errors():
    np.testing.assert_allclose(torus_l1_distance([[350.0]], [[10.0]], period=360.0), [20.0])
    with pytest.raises(tw.ShapeError, match="cosine_distance"):
        cosine_distance(np.ones((2, 3)), np.ones((2, 4)))
    with pytest.raises(tw.ShapeError, match="pairwise_euclidean_distance"):
        pairwise_euclidean_distance(np.ones((2, 3)), np.ones((2, 4)))
    with pytest.raises(tw.InputValueError, match=r"tf\.SparseTensor"):
        sparse_cosine_distance(np.ones((2, 3)), np.ones((2, 3)))


def test_as_layers():
    x, y = tw.Input(n_units=3), tw.Input(n_units=3)
    a = np.array([[1.0, 0.0, 2.0]], "float32")
    b = np.array([[0.0, 1.0, 2.0]], "float32")
    for fn in (cosine_distance, euclidean_distance, manhattan_distance, torus_l1_distance):
        node = fn(x, y)
        assert node.shape == (None,)
        np.testing.assert_allclose(node(a, b), fn(a, b), rtol=1e-6)
    assert pairwise_euclidean_distance(x, y).shape == (None, None)
    sp = tw.Input(n_units=3, sparse=True)
    node = sparse_cosine_distance(sp, y)
    assert node.shape == (None,)
    np.testing.assert_allclose(node(tf.sparse.from_dense(a), b), cosine_distance(a, b), rtol=1e-6)


def test_cosine_similarity_loss_is_minus_the_cosine_and_safe_at_zero():
    x = np.array([[1.0, 2.0], [0.0, 0.0]], "float32")
    y = np.array([[2.0, 4.0], [1.0, 0.0]], "float32")
    np.testing.assert_allclose(cosine_similarity(x, y, reduction="none"), [-1.0, 0.0], atol=1e-6)
    np.testing.assert_allclose(
        cosine_similarity(x, y, reduction="none"), cosine_distance(x, y) - 1.0, atol=1e-6
    )
    p = tf.Variable(np.zeros((1, 2), "float32"))
    with tf.GradientTape() as tape:
        value = cosine_similarity([[1.0, 0.0]], p)
    assert np.all(np.isfinite(tape.gradient(value, p).numpy()))


def test_cosine_similarity_floors_the_norms_at_keras_epsilon():
    """Norms between 1e-7 (Keras's floor) and 1e-6 (``tf.math.l2_normalize``'s) are kept."""
    y = np.array([[3e-7, 4e-7], [1.0, 2.0], [0.0, 0.0], [1.0, -1.0]], "float32")
    p = np.array([[3e-7, 4e-7], [2e-7, 1e-7], [1.0, 1.0], [-2.0, 2.0]], "float32")
    want = keras.losses.cosine_similarity(y, p)
    got = cosine_similarity(y, p, reduction="none")
    np.testing.assert_allclose(got, np.asarray(want), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[:2], [-1.0, -0.8], rtol=1e-5)
