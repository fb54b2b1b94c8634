"""The regularizers against Keras 3's: the same penalty and gradient for a weight, and the
same total for a layer (``tw.regularization_loss`` next to a Keras layer's ``losses``)."""

import keras
import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

R = keras.regularizers
CASES = [
    ("l1", {}, R.L1()),
    ("l2", {"l2": 0.3}, R.L2(0.3)),
    ("l1_l2", {}, R.L1L2(l1=0.01, l2=0.01)),
    ("orthogonal", {}, R.OrthogonalRegularizer()),
    ("orthogonal", {"factor": 0.5, "mode": "columns"}, R.OrthogonalRegularizer(0.5, "columns")),
]


@pytest.mark.parametrize(("name", "options", "ref"), CASES, ids=[c[0] for c in CASES])
def test_penalty_and_gradient_match_keras(randn, name, options, ref):
    penalty = tw.regularizers[f"{name}.v1"](**options)
    w = tf.Variable(randn(5, 4))
    with tf.GradientTape(persistent=True) as tape:
        ours, theirs = penalty(w), ref(w)
    np.testing.assert_allclose(float(ours), float(theirs), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(tape.gradient(ours, w), tape.gradient(theirs, w), atol=1e-5)


def test_a_name_means_the_defaults_as_in_keras():
    """``"l1_l2"`` is 0.01 of each, as Keras documents and Keras 2 gave (Keras 3's ``L1L2()``
    defaults to no penalty at all, and it has no ``"l1_l2"`` name)."""
    w = tf.constant([[1.0, -2.0], [3.0, 0.5]])
    for name, keras_name in [("l1", "l1"), ("l2", "l2"), ("l1_l2", R.L1L2(0.01, 0.01))]:
        ours = tw.layers["Linear.v1"](tw.Input(n_units=2), 2, w_regularizer=name)
        ours.weights.assign(w)
        ref = keras.layers.Dense(2, kernel_regularizer=keras_name)
        ref.build((None, 2))
        ref.kernel.assign(w)
        np.testing.assert_allclose(
            float(tw.regularization_loss(ours)), float(sum(ref.losses)), rtol=1e-6
        )


def test_a_convolution_adds_the_terms_keras_adds(randn):
    x = tw.Input(shape=(5, 5, 2))
    ours = tw.layers["Conv2D.v1"](x, 3, w_regularizer="l2", b_regularizer="l1")
    ref = keras.layers.Conv2D(3, 3, kernel_regularizer="l2", bias_regularizer="l1")
    ref.build((None, 5, 5, 2))
    ref.bias.assign(randn(3))
    ours.kernel.assign(ref.kernel)
    ours.bias.assign(ref.bias)
    np.testing.assert_allclose(float(tw.regularization_loss(ours)), float(sum(ref.losses)))
