"""Hinge against Keras 3; squared and categorical hinge at their margins (their parity with
Keras: test_parity_losses)."""

import keras
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorweave as tw
from tensorweave_losses.losses.margin import categorical_hinge, hinge, squared_hinge


@settings(max_examples=10)
@given(st.integers(1, 6), st.integers(1, 4), st.integers(0, 2**31 - 1), st.booleans())
def test_against_keras(batch, width, seed, zero_one):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, size=(batch, width)).astype("float32")
    if not zero_one:
        labels = 2 * labels - 1
    scores = (rng.standard_normal((batch, width)) * 2).astype("float32")
    w = rng.random(batch).astype("float32")
    want = keras.losses.Hinge()(labels, scores, sample_weight=w)
    np.testing.assert_allclose(hinge(labels, scores, sample_weight=w), want, rtol=1e-5, atol=1e-6)


def test_extremes_and_layer():
    assert float(hinge([[1.0, -1.0]], [[1e4, -1e4]])) == 0.0
    np.testing.assert_allclose(hinge([[1.0]], [[-1e4]]), 1e4 + 1)
    y, s = tw.Input(n_units=1), tw.Input(n_units=1)
    np.testing.assert_allclose(hinge(y, s)([[1.0], [0.0]], [[0.5], [0.5]]), (0.5 + 1.5) / 2)


def test_squared_hinge_is_the_square_of_each_margin():
    np.testing.assert_allclose(squared_hinge([[1.0, 0.0]], [[0.5, 0.5]]), (0.25 + 2.25) / 2)
    assert float(squared_hinge([[1.0]], [[2.0]])) == 0.0  # beyond the margin


def test_categorical_hinge_needs_the_true_class_to_win_by_one():
    one_hot = [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]
    scores = [[0.2, 1.5, 0.4], [0.1, 0.3, -0.2]]  # a margin of 1.1; a loss by 0.2
    np.testing.assert_allclose(
        categorical_hinge(one_hot, scores, reduction="none"), [0.0, 1.2], rtol=1e-6
    )
    with pytest.raises(tw.ShapeError, match=r"categorical_hinge.*tf.one_hot"):
        categorical_hinge([1, 0], scores)
