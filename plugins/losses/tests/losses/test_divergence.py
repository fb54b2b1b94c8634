"""KL divergence against Keras 3 and numpy."""

import keras
import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorweave as tw
from tensorweave_losses import LossValueError
from tensorweave_losses.losses.divergence import kl_divergence


def _softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


@settings(max_examples=10)
@given(st.integers(1, 6), st.integers(2, 5), st.integers(0, 2**31 - 1))
def test_against_keras_and_from_logits(batch, classes, seed):
    rng = np.random.default_rng(seed)
    q = _softmax(rng.standard_normal((batch, classes)) * 2).astype("float32")
    z = (rng.standard_normal((batch, classes)) * 2).astype("float32")
    p = _softmax(z).astype("float32")
    w = rng.random(batch).astype("float32")
    want = keras.losses.KLDivergence()(q, p, sample_weight=w)
    np.testing.assert_allclose(kl_divergence(q, p, sample_weight=w), want, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(
        kl_divergence(q, z, from_logits=True, sample_weight=w), want, rtol=1e-4, atol=1e-6
    )


def test_zero_for_equal_distributions_and_finite_on_extreme_logits():
    np.testing.assert_allclose(kl_divergence([[0.0, 1.0]], [[0.0, 1.0]]), 0.0, atol=1e-6)
    z = tf.Variable([[1e4, -1e4]])
    with tf.GradientTape() as tape:
        value = kl_divergence([[0.5, 0.5]], z, from_logits=True)
    assert np.isfinite(value.numpy()) and np.isfinite(tape.gradient(value, z)).all()


def test_as_layer():
    q, p = tw.Input(n_units=2), tw.Input(n_units=2)
    a, b = np.array([[0.3, 0.7]], "float32"), np.array([[0.6, 0.4]], "float32")
    np.testing.assert_allclose(kl_divergence(q, p)(a, b), kl_divergence(a, b))


def test_logits_passed_as_probabilities_raise_with_the_fix():
    with pytest.raises(LossValueError, match=r"kl_divergence.*from_logits=True"):
        kl_divergence([[0.5, 0.5]], [[2.0, -1.0]])
