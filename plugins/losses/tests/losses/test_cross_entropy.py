"""Cross-entropy losses against Keras 3 and numpy, on random and extreme inputs."""

import warnings

import keras
import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorweave as tw
from tensorweave_losses import (
    LossValueError,
    ProbabilitiesAsLogitsWarning,
)
from tensorweave_losses.losses.cross_entropy import (
    binary_cross_entropy,
    categorical_cross_entropy,
    sparse_categorical_cross_entropy,
)

shapes = st.tuples(st.integers(1, 6), st.integers(2, 5), st.integers(0, 2**31 - 1))
smoothing = st.sampled_from([0.0, 0.1])


def _data(batch, classes, seed, scale=3.0):
    rng = np.random.default_rng(seed)
    logits = (rng.standard_normal((batch, classes)) * scale).astype("float32")
    ids = rng.integers(0, classes, size=batch)
    weights = rng.random(batch).astype("float32")
    return rng, logits, ids, weights


def _softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


@settings(max_examples=10)
@given(shapes, smoothing, st.booleans())
def test_categorical_matches_keras(shape, ls, from_logits):
    batch, classes, seed = shape
    _, logits, ids, weights = _data(batch, classes, seed)
    onehot = np.eye(classes, dtype="float32")[ids]
    preds = logits if from_logits else _softmax(logits)
    want = keras.losses.CategoricalCrossentropy(from_logits=from_logits, label_smoothing=ls)(
        onehot, preds, sample_weight=weights
    )
    got = categorical_cross_entropy(
        onehot, preds, from_logits=from_logits, label_smoothing=ls, sample_weight=weights
    )
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


@settings(max_examples=10)
@given(shapes, smoothing, st.booleans())
def test_sparse_matches_categorical_and_numpy(shape, ls, from_logits):
    batch, classes, seed = shape
    _, logits, ids, weights = _data(batch, classes, seed)
    preds = logits if from_logits else _softmax(logits)
    got = sparse_categorical_cross_entropy(
        ids,
        preds,
        from_logits=from_logits,
        label_smoothing=ls,
        sample_weight=weights,
        reduction="none",
    )
    target = np.eye(classes)[ids] * (1 - ls) + ls / classes
    logp = np.log(np.clip(_softmax(logits.astype("float64")), 1e-7, 1 - 1e-7))
    if from_logits:
        z = logits.astype("float64")
        logp = z - z.max(-1, keepdims=True)
        logp = logp - np.log(np.exp(logp).sum(-1, keepdims=True))
    want = -(target * logp).sum(-1) * weights
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


@settings(max_examples=10)
@given(shapes, smoothing, st.booleans())
def test_binary_matches_keras(shape, ls, from_logits):
    batch, outputs, seed = shape
    rng, logits, _, weights = _data(batch, outputs, seed)
    labels = rng.integers(0, 2, size=logits.shape).astype("float32")
    preds = logits if from_logits else 1 / (1 + np.exp(-logits))
    want = keras.losses.BinaryCrossentropy(from_logits=from_logits, label_smoothing=ls)(
        labels, preds, sample_weight=weights
    )
    got = binary_cross_entropy(
        labels, preds, from_logits=from_logits, label_smoothing=ls, sample_weight=weights
    )
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_binary_labels_of_rank_one_fit_predictions_with_one_column():
    labels = np.array([1.0, 0.0, 1.0], "float32")
    logits = np.array([[2.0], [-1.0], [0.5]], "float32")
    np.testing.assert_allclose(
        binary_cross_entropy(labels, logits, from_logits=True),
        binary_cross_entropy(labels[:, None], logits, from_logits=True),
    )


@pytest.mark.parametrize(
    "loss, labels",
    [
        (categorical_cross_entropy, np.eye(3, dtype="float32")[[0, 2]]),
        (sparse_categorical_cross_entropy, np.array([0, 2])),
    ],
)
def test_extreme_logits_stay_finite_with_finite_gradients(loss, labels):
    logits = tf.Variable([[1e4, -1e4, 0.0], [-1e4, 1e4, 1e4]])
    with tf.GradientTape() as tape:
        value = loss(labels, logits, from_logits=True)
    grad = tape.gradient(value, logits)
    assert np.isfinite(value.numpy()) and np.isfinite(grad.numpy()).all()
    np.testing.assert_allclose(value, (0.0 + 0.0) / 2 + np.log(2) / 2, rtol=1e-5)


def test_binary_extreme_logits_and_probabilities():
    labels = np.array([[1.0, 0.0, 1.0, 0.0]], "float32")
    logits = tf.Variable([[1e4, -1e4, -1e4, 1e4]])
    with tf.GradientTape() as tape:
        value = binary_cross_entropy(labels, logits, from_logits=True)
    assert np.isfinite(value.numpy()) and np.isfinite(tape.gradient(value, logits)).all()
    np.testing.assert_allclose(value, 1e4 / 2, rtol=1e-5)
    probs = np.array([[1.0, 0.0, 0.0, 1.0]], "float32")
    assert np.isfinite(binary_cross_entropy(labels, probs, from_logits=False).numpy())


def test_single_class_and_zero_weights():
    assert float(categorical_cross_entropy([[1.0]], [[7.0]], from_logits=True)) == 0.0
    assert float(sparse_categorical_cross_entropy([0, 0], [[3.0], [-2.0]], from_logits=True)) == 0.0
    weights = np.zeros(2, "float32")
    assert (
        float(
            sparse_categorical_cross_entropy(
                [0, 1], [[3.0, 0], [0, 2]], sample_weight=weights, from_logits=True
            )
        )
        == 0.0
    )


def test_sparse_labels_out_of_range_raise_eagerly_and_in_graphs():
    with pytest.raises(LossValueError, match=r"class ids in \[0, 3\).*\[3, -1\]"):
        sparse_categorical_cross_entropy([0, 3, -1], np.zeros((3, 3), "float32"), from_logits=True)
    fn = tf.function(lambda y, z: sparse_categorical_cross_entropy(y, z, from_logits=True))
    with pytest.raises(tf.errors.InvalidArgumentError, match="class ids in"):
        fn(tf.constant([0, 5]), tf.zeros([2, 3]))


def test_shape_mismatches_name_the_loss_shapes_and_fix():
    with pytest.raises(
        tw.ShapeError, match=r"categorical_cross_entropy.*\(2, 3\).*\(2, 4\).*sparse"
    ):
        categorical_cross_entropy(np.ones((2, 3)), np.ones((2, 4)), from_logits=True)
    with pytest.raises(tw.ShapeError, match=r"sparse_categorical_cross_entropy.*\(2, 4\).*one-hot"):
        sparse_categorical_cross_entropy(
            np.ones((2, 4), "int64"), np.ones((2, 4)), from_logits=True
        )
    with pytest.raises(tw.InputValueError, match="integer class ids"):
        sparse_categorical_cross_entropy([0.5, 1.0], np.ones((2, 4)), from_logits=True)


def test_probabilities_passed_as_logits_warn_and_logits_passed_as_probabilities_raise():
    probs = np.array([[0.2, 0.8], [0.5, 0.5]], "float32")
    with pytest.warns(ProbabilitiesAsLogitsWarning, match="from_logits=False"):
        categorical_cross_entropy(np.eye(2)[[1, 0]], probs, from_logits=True)
    with pytest.warns(ProbabilitiesAsLogitsWarning):
        sparse_categorical_cross_entropy([1, 0], probs, from_logits=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        categorical_cross_entropy(np.eye(2)[[1, 0]], probs, from_logits=False)
        categorical_cross_entropy(
            np.eye(2)[[1, 0]], np.array([[0.2, 0.3], [0.1, 0.1]]), from_logits=True
        )
    with pytest.raises(LossValueError, match="from_logits=True"):
        categorical_cross_entropy(np.eye(2)[[1, 0]], probs * 3, from_logits=False)
    with pytest.raises(LossValueError, match="binary_cross_entropy"):
        binary_cross_entropy([[1.0]], [[2.5]], from_logits=False)


def test_as_layer_matches_function_and_has_gradients():
    labels = tw.Input(n_units=3, name="labels")
    logits = tw.Input(n_units=3, name="logits")
    node = categorical_cross_entropy(
        labels, logits, label_smoothing=0.2, reduction="sum", from_logits=True
    )
    y = np.eye(3, dtype="float32")[[0, 1, 2, 1]]
    z = np.random.default_rng(1).standard_normal((4, 3)).astype("float32")
    want = categorical_cross_entropy(y, z, label_smoothing=0.2, reduction="sum", from_logits=True)
    np.testing.assert_allclose(tw.compile(node)(y, z), want, rtol=1e-6)
    zt = tf.constant(z)
    with tf.GradientTape() as tape:
        tape.watch(zt)
        value = node.compute(tf.constant(y), zt)
    np.testing.assert_allclose(
        tape.gradient(value, zt), _softmax(z) - (y * 0.8 + 0.2 / 3), atol=1e-5
    )


@pytest.mark.parametrize(
    "loss, labels",
    [
        (binary_cross_entropy, np.array([[1.0, 0.0]], "float32")),
        (categorical_cross_entropy, np.array([[1.0, 0.0]], "float32")),
        (sparse_categorical_cross_entropy, np.array([0])),
    ],
)
def test_omitted_from_logits_means_probabilities_as_keras(loss, labels):
    probs = np.array([[0.8, 0.2]], "float32")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        omitted = loss(labels, probs)  # no warning: the default is decided
    np.testing.assert_allclose(omitted, loss(labels, probs, from_logits=False))
    with pytest.raises(LossValueError, match=r"from_logits=False.*from_logits=True"):
        loss(labels, np.array([[2.0, -1.0]], "float32"))  # logits need from_logits=True


def test_from_logits_default_is_keras_false():
    import inspect

    for name in ("binary", "categorical", "sparse_categorical"):
        fn = tw.losses[f"{name}_cross_entropy.v1"]
        assert inspect.signature(fn).parameters["from_logits"].default is False
    assert (
        inspect.signature(tw.losses["kl_divergence.v1"]).parameters["from_logits"].default is False
    )
