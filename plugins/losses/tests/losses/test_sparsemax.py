"""Sparsemax and its loss against an independent numpy implementation."""

import numpy as np
import tensorflow as tf
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorweave as tw
from tensorweave_losses.losses.sparsemax import sparsemax, sparsemax_loss


def np_sparsemax(z):
    """Projection onto the simplex by bisection on the threshold (a different algorithm)."""
    z = np.asarray(z, "float64")
    lo = z.max(-1, keepdims=True) - 1.0
    hi = z.max(-1, keepdims=True)
    for _ in range(100):
        tau = (lo + hi) / 2
        total = np.maximum(z - tau, 0).sum(-1, keepdims=True)
        lo = np.where(total > 1, tau, lo)
        hi = np.where(total > 1, hi, tau)
    tau = (lo + hi) / 2
    return np.maximum(z - tau, 0), tau


def np_loss(q, z):
    p, tau = np_sparsemax(z)
    support = p > 0
    return 0.5 * ((z**2 - tau**2) * support).sum(-1) - (q * z).sum(-1) + 0.5 * (q**2).sum(-1)


@settings(max_examples=15)
@given(st.integers(1, 5), st.integers(2, 6), st.integers(0, 2**31 - 1))
def test_against_numpy(batch, classes, seed):
    rng = np.random.default_rng(seed)
    z = (rng.standard_normal((batch, classes)) * 2).astype("float32")
    q = np.eye(classes, dtype="float32")[rng.integers(0, classes, batch)]
    p, _ = np_sparsemax(z)
    np.testing.assert_allclose(sparsemax(z), p, atol=1e-5)
    np.testing.assert_allclose(sparsemax_loss(q, z, reduction="none"), np_loss(q, z), atol=1e-4)


def test_loss_is_zero_at_its_own_sparsemax_and_gradient_is_p_minus_q():
    z = tf.Variable([[1.0, 0.8, -2.0], [3.0, 0.0, 0.1]])
    q = sparsemax(z).numpy()
    np.testing.assert_allclose(sparsemax_loss(q, z, reduction="none"), [0.0, 0.0], atol=1e-6)
    labels = np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0]], "float32")
    with tf.GradientTape() as tape:
        value = sparsemax_loss(labels, z, reduction="sum")
    np.testing.assert_allclose(tape.gradient(value, z), q - labels, atol=1e-6)


def test_extreme_logits_and_layer():
    z = np.array([[1e4, -1e4, 0.0]], "float32")
    np.testing.assert_allclose(sparsemax(z), [[1.0, 0.0, 0.0]])
    value = sparsemax_loss([[0.0, 1.0, 0.0]], z)
    np.testing.assert_allclose(value, 2e4, rtol=1e-5)
    q, logits = tw.Input(n_units=3), tw.Input(n_units=3)
    np.testing.assert_allclose(sparsemax_loss(q, logits)([[0.0, 1.0, 0.0]], z), value)
