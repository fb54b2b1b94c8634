"""Accuracy, top-k, precision, recall and F1 against Keras 3 metrics."""

import keras
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorweave as tw
from tensorweave_losses import LossValueError
from tensorweave_losses.metrics.classification import (
    accuracy,
    binary_accuracy,
    f1,
    precision,
    recall,
    sparse_accuracy,
    top_k_accuracy,
)

cases = st.tuples(st.integers(1, 8), st.integers(2, 6), st.integers(0, 2**31 - 1))


def _keras(metric, *args, sample_weight=None):
    metric.update_state(*args, sample_weight=sample_weight)
    return float(metric.result())


@settings(max_examples=8)
@given(cases, st.booleans())
def test_accuracies_against_keras(case, weighted):
    batch, classes, seed = case
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, classes, size=batch)
    scores = rng.standard_normal((batch, classes)).astype("float32")
    onehot = np.eye(classes, dtype="float32")[ids]
    w = rng.random(batch).astype("float32") if weighted else None
    np.testing.assert_allclose(
        accuracy(onehot, scores, sample_weight=w),
        _keras(keras.metrics.CategoricalAccuracy(), onehot, scores, sample_weight=w),
        rtol=1e-5,
    )
    np.testing.assert_allclose(
        sparse_accuracy(ids, scores, sample_weight=w),
        _keras(keras.metrics.SparseCategoricalAccuracy(), ids, scores, sample_weight=w),
        rtol=1e-5,
    )
    k = min(2, classes)
    np.testing.assert_allclose(
        top_k_accuracy(ids, scores, k=k, sample_weight=w),
        _keras(keras.metrics.SparseTopKCategoricalAccuracy(k=k), ids, scores, sample_weight=w),
        rtol=1e-5,
    )


@settings(max_examples=8)
@given(cases, st.sampled_from([0.3, 0.5, 0.7]), st.booleans())
def test_binary_metrics_against_keras(case, threshold, weighted):
    batch, width, seed = case
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, size=(batch, width)).astype("float32")
    probs = rng.random((batch, width)).astype("float32")
    w = rng.random(batch).astype("float32") if weighted else None
    pairs = [
        (binary_accuracy, keras.metrics.BinaryAccuracy(threshold=threshold)),
        (precision, keras.metrics.Precision(thresholds=threshold)),
        (recall, keras.metrics.Recall(thresholds=threshold)),
    ]
    for fn, metric in pairs:
        want = _keras(metric, labels, probs, sample_weight=w)
        got = fn(labels, probs, threshold=threshold, sample_weight=w)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=fn.__name__)
    p = float(precision(labels, probs, threshold=threshold, sample_weight=w))
    r = float(recall(labels, probs, threshold=threshold, sample_weight=w))
    want_f1 = 2 * p * r / (p + r) if p + r else 0.0
    np.testing.assert_allclose(
        f1(labels, probs, threshold=threshold, sample_weight=w), want_f1, rtol=1e-5, atol=1e-6
    )


def test_edges_single_class_zero_weights_no_positives():
    assert float(sparse_accuracy([0, 0], [[1.0], [2.0]])) == 1.0
    assert float(accuracy([[1.0, 0.0]], [[0.9, 0.1]], sample_weight=[0.0])) == 0.0
    assert float(precision([0.0, 0.0], [0.1, 0.2])) == 0.0
    assert float(recall([0.0, 0.0], [0.9, 0.2])) == 0.0
    assert float(f1([0.0, 0.0], [0.1, 0.2])) == 0.0
    assert float(top_k_accuracy([1], [[1e4, -1e4, 0.0]], k=2)) == 0.0


def test_errors_name_the_metric():
    with pytest.raises(tw.ShapeError, match=r"accuracy.*sparse_accuracy"):
        accuracy([0, 1], [[0.1, 0.9], [0.8, 0.2]])
    with pytest.raises(LossValueError, match=r"sparse_accuracy.*\[0, 2\)"):
        sparse_accuracy([0, 2], [[0.1, 0.9], [0.8, 0.2]])


def test_as_layer():
    labels = tw.Input(shape=(), dtype="int64")
    scores = tw.Input(n_units=3)
    node = top_k_accuracy(labels, scores, k=2)
    y, s = np.array([0, 2]), np.array([[0.1, 0.5, 0.4], [0.3, 0.2, 0.1]], "float32")
    assert float(tw.compile(node)(y, s)) == float(top_k_accuracy(y, s, k=2)) == 0.0
    binary = tw.Input(n_units=3)
    b = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]], "float32")
    assert float(f1(binary, scores)(b, s)) == float(f1(b, s))
    with pytest.raises(tw.ShapeError, match=r"f1: labels of shape \(None,\)"):
        f1(labels, scores)
