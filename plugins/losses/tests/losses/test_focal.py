"""Focal cross-entropies: gamma=0 is the cross-entropy, hard examples weigh more, logits of any
size stay finite, bad arguments and probabilities are refused (parity: test_parity_losses)."""

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorweave as tw
from tensorweave_losses import LossValueError
from tensorweave_losses.losses.cross_entropy import binary_cross_entropy, categorical_cross_entropy
from tensorweave_losses.losses.focal import (
    binary_focal_cross_entropy,
    categorical_focal_cross_entropy,
)


@settings(max_examples=5, deadline=None)
@given(st.integers(1, 4), st.integers(2, 5), st.integers(0, 2**31 - 1))
def test_gamma_zero_is_the_cross_entropy(batch, classes, seed):
    rng = np.random.default_rng(seed)
    logits = rng.standard_normal((batch, classes)).astype("float32")
    labels = rng.integers(0, 2, size=(batch, classes)).astype("float32")
    np.testing.assert_allclose(
        binary_focal_cross_entropy(labels, logits, gamma=0.0, from_logits=True),
        binary_cross_entropy(labels, logits, from_logits=True),
        rtol=1e-5,
    )
    one_hot = np.eye(classes, dtype="float32")[rng.integers(0, classes, size=batch)]
    np.testing.assert_allclose(
        categorical_focal_cross_entropy(one_hot, logits, gamma=0.0, alpha=1.0, from_logits=True),
        categorical_cross_entropy(one_hot, logits, from_logits=True),
        rtol=1e-5,
    )


def test_hard_examples_weigh_more_than_easy_ones():
    bce = binary_cross_entropy([[1.0], [1.0]], [[0.9], [0.3]], from_logits=False, reduction="none")
    focal = binary_focal_cross_entropy([[1.0], [1.0]], [[0.9], [0.3]], reduction="none")
    ratio = (focal / bce).numpy()
    np.testing.assert_allclose(ratio, [0.1**2, 0.7**2], rtol=1e-5)
    balanced = binary_focal_cross_entropy(
        [[1.0], [0.0]], [[0.3], [0.7]], apply_class_balancing=True, alpha=0.25, reduction="none"
    )
    unbalanced = binary_focal_cross_entropy([[1.0], [0.0]], [[0.3], [0.7]], reduction="none")
    np.testing.assert_allclose(balanced / unbalanced, [0.25, 0.75], rtol=1e-5)


def test_extreme_logits_give_finite_losses_and_gradients():
    logits = tf.Variable([[1e4, -1e4, 0.0]])
    for loss, labels in [
        (binary_focal_cross_entropy, [[0.0, 1.0, 1.0]]),
        (categorical_focal_cross_entropy, [[0.0, 1.0, 0.0]]),
    ]:
        with tf.GradientTape() as tape:
            value = loss(labels, logits, from_logits=True)
        grad = tape.gradient(value, logits)
        assert np.isfinite(value.numpy()) and np.all(np.isfinite(grad.numpy())), loss.__name__


def test_bad_arguments_and_logits_as_probabilities_are_refused():
    with pytest.raises(ValueError, match="gamma must be >= 0"):
        binary_focal_cross_entropy([[1.0]], [[0.5]], gamma=-1.0)
    with pytest.raises(ValueError, match="label_smoothing must be in"):
        categorical_focal_cross_entropy([[1.0, 0.0]], [[0.5, 0.5]], label_smoothing=2.0)
    with pytest.raises(LossValueError, match=r"binary_focal_cross_entropy.*from_logits=True"):
        binary_focal_cross_entropy([[1.0]], [[3.0]])
    with pytest.raises(tw.ShapeError, match=r"categorical_focal_cross_entropy.*tf.one_hot"):
        categorical_focal_cross_entropy([0, 1], [[0.5, 0.5], [0.5, 0.5]])


def test_as_a_graph_node_with_a_weight_input():
    y, p, w = tw.Input(n_units=3), tw.Input(n_units=3), tw.Input(shape=())
    node = tw.losses["categorical_focal_cross_entropy.v1"](
        y, p, from_logits=True, sample_weight=w, gamma=1.0
    )
    labels = np.eye(3, dtype="float32")[[0, 2]]
    logits = np.array([[1.0, 0.0, -1.0], [0.5, 0.5, 0.0]], "float32")
    weights = np.array([1.0, 0.0], "float32")
    want = categorical_focal_cross_entropy(
        labels, logits, from_logits=True, sample_weight=weights, gamma=1.0
    )
    np.testing.assert_allclose(tw.compile(node)(labels, logits, weights), want, rtol=1e-6)
