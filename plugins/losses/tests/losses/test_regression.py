"""MSE, MAE and Huber against Keras 3; log-cosh, Poisson, MSLE and MAPE at their limits
(their parity with Keras: test_parity_losses)."""

import keras
import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorweave as tw
from tensorweave_losses.losses.regression import huber, log_cosh, mae, mape, mse, msle, poisson

cases = st.tuples(st.integers(1, 6), st.integers(1, 4), st.integers(0, 2**31 - 1))


@settings(max_examples=10)
@given(cases, st.sampled_from(["mean", "sum", "none"]), st.sampled_from([0.5, 1.0, 2.0]))
def test_against_keras(case, reduction, delta):
    batch, width, seed = case
    rng = np.random.default_rng(seed)
    y, p = (rng.standard_normal((2, batch, width)) * 2).astype("float32")
    w = rng.random(batch).astype("float32")
    keras_reduction = "sum_over_batch_size" if reduction == "mean" else reduction
    pairs = [
        (mse(y, p, sample_weight=w, reduction=reduction), keras.losses.MeanSquaredError),
        (mae(y, p, sample_weight=w, reduction=reduction), keras.losses.MeanAbsoluteError),
    ]
    for got, cls in pairs:
        want = cls(reduction=keras_reduction)(y, p, sample_weight=w)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    want = keras.losses.Huber(delta=delta, reduction=keras_reduction)(y, p, sample_weight=w)
    got = huber(y, p, delta=delta, sample_weight=w, reduction=reduction)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_huber_is_quadratic_then_linear_and_finite_on_extremes():
    np.testing.assert_allclose(huber([[0.0]], [[0.5]]), 0.125)
    np.testing.assert_allclose(huber([[0.0]], [[1e4]]), 1e4 - 0.5)
    p = tf.Variable([[1e4, -1e4]])
    with tf.GradientTape() as tape:
        value = huber([[0.0, 0.0]], p)
    np.testing.assert_allclose(tape.gradient(value, p), [[0.5, -0.5]])
    with pytest.raises(ValueError, match="delta must be > 0"):
        huber([[0.0]], [[1.0]], delta=0)


def test_rank_one_labels_fit_a_single_output_column():
    np.testing.assert_allclose(mse([1.0, 2.0], [[1.0], [4.0]]), 2.0)


def test_mismatch_error_names_loss_and_shapes():
    with pytest.raises(tw.ShapeError, match=r"mae: labels of shape \(2, 3\).*\(2, 2\)"):
        mae(np.ones((2, 3)), np.ones((2, 2)))


def test_as_layer_with_gradients():
    y, p = tw.Input(n_units=2), tw.Input(n_units=2)
    node = huber(y, p, delta=0.5)
    a = np.array([[0.0, 1.0]], "float32")
    b = np.array([[2.0, 1.2]], "float32")
    np.testing.assert_allclose(node(a, b), huber(a, b, delta=0.5))
    bt = tf.constant(b)
    with tf.GradientTape() as tape:
        tape.watch(bt)
        value = node.compute(tf.constant(a), bt)
    np.testing.assert_allclose(tape.gradient(value, bt), [[0.25, 0.1]], rtol=1e-5)


def test_log_cosh_is_quadratic_near_zero_and_linear_far_with_finite_gradients():
    np.testing.assert_allclose(log_cosh([[0.0]], [[0.1]]), np.log(np.cosh(0.1)), rtol=1e-4)
    np.testing.assert_allclose(log_cosh([[0.0]], [[1e4]]), 1e4 - np.log(2.0), rtol=1e-6)
    p = tf.Variable([[1e4, -1e4]])
    with tf.GradientTape() as tape:
        value = log_cosh([[0.0, 0.0]], p)
    np.testing.assert_allclose(tape.gradient(value, p), [[0.5, -0.5]])


def test_poisson_is_smallest_at_the_true_rate():
    rates = np.linspace(0.5, 6.0, 12, dtype="float32")[:, None]
    losses = poisson(np.full_like(rates, 3.0), rates, reduction="none").numpy()
    assert rates[np.argmin(losses), 0] == pytest.approx(3.0)


def test_msle_and_mape_are_relative_errors():
    np.testing.assert_allclose(msle([[9.0]], [[99.0]]), np.log(10.0) ** 2, rtol=1e-5)
    np.testing.assert_allclose(msle([[-5.0]], [[0.0]]), 0.0, atol=1e-6)  # clipped at 1e-7
    np.testing.assert_allclose(mape([[10.0], [-4.0]], [[11.0], [-2.0]]), (10 + 50) / 2)
    assert np.isfinite(float(mape([[0.0]], [[1.0]])))  # zero targets: / 1e-7, not / 0
