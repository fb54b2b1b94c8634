"""A metric node's streaming state (``node.streaming()``) over batches equals scikit-learn on
the whole set, for any batch size: F1, precision, recall, exact AUC, accuracies."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

import tensorweave as tw


def _imbalanced(n=301, positives=0.08, seed=0):
    rng = np.random.default_rng(seed)
    labels = (rng.random(n) < positives).astype("float32")
    scores = np.clip(0.35 * labels + rng.random(n) * 0.7, 0.0, 1.0).astype("float32")
    return labels, scores


def _stream(node, batch_size, *arrays):
    state = node.streaming()
    assert state is not None
    state.reset()
    for lo in range(0, len(arrays[0]), batch_size):
        state.update(*[tf.constant(a[lo : lo + batch_size]) for a in arrays])
    return float(state.result())


BINARY = {
    "f1.v1": lambda y, s: skm.f1_score(y, s > 0.5),
    "precision.v1": lambda y, s: skm.precision_score(y, s > 0.5),
    "recall.v1": lambda y, s: skm.recall_score(y, s > 0.5),
    "binary_accuracy.v1": lambda y, s: skm.accuracy_score(y, s > 0.5),
    "auc.v1": skm.roc_auc_score,
}


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("batch_size", [1, 7, 64, 1000])
def test_binary_metrics_over_batches_equal_sklearn_on_the_whole_set(name, batch_size):
    labels, scores = _imbalanced()
    y, p = tw.Input(shape=(), name="y"), tw.Input(shape=(), name="p")
    node = tw.metrics[name](y, p)
    got = _stream(node, batch_size, labels, scores)
    np.testing.assert_allclose(got, BINARY[name](labels, scores), rtol=1e-6, atol=1e-7)


def test_a_batch_average_of_f1_would_be_wrong():
    """The figure the old per-batch average gave differs: the streaming state is needed."""
    labels, scores = _imbalanced()
    per_batch = [
        skm.f1_score(labels[i : i + 16], scores[i : i + 16] > 0.5, zero_division=0.0)
        for i in range(0, len(labels), 16)
    ]
    sizes = [len(labels[i : i + 16]) for i in range(0, len(labels), 16)]
    assert abs(np.average(per_batch, weights=sizes) - skm.f1_score(labels, scores > 0.5)) > 0.05


@settings(max_examples=15, deadline=None)
@given(
    batch_size=st.integers(1, 50),
    threshold=st.sampled_from([0.3, 0.5, 0.7]),
    seed=st.integers(0, 5),
)
def test_threshold_and_weights_are_bound_for_any_batch_size(batch_size, threshold, seed):
    labels, scores = _imbalanced(n=97, seed=seed)
    weights = np.random.default_rng(seed).random(97).astype("float32")
    y, p = tw.Input(shape=(), name="y"), tw.Input(shape=(), name="p")
    w = tw.Input(shape=(), name="w")
    node = tw.metrics["f1.v1"](y, p, threshold=threshold, sample_weight=w)
    got = _stream(node, batch_size, labels, scores, weights)
    want = skm.f1_score(labels, scores > threshold, sample_weight=weights, zero_division=0.0)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("batch_size", [3, 50])
def test_sparse_accuracy_and_masked_perplexity_over_batches(batch_size):
    rng = np.random.default_rng(2)
    ids = rng.integers(0, 4, size=101)
    scores = rng.normal(size=(101, 4)).astype("float32")
    y, p = tw.Input(shape=(), dtype="int64", name="y"), tw.Input(n_units=4, name="p")
    got = _stream(tw.metrics["sparse_accuracy.v1"](y, p), batch_size, ids, scores)
    np.testing.assert_allclose(got, skm.accuracy_score(ids, scores.argmax(-1)), rtol=1e-6)
    # perplexity of sequences of different lengths: exp of the mean over every real token
    seq = rng.integers(0, 4, size=(101, 6))
    logits = rng.normal(size=(101, 6, 4)).astype("float32")
    mask = (np.arange(6)[None] < rng.integers(1, 7, size=101)[:, None]).astype("float32")
    s, lg = tw.Input(batch_shape=(None, None), dtype="int64"), tw.Input(batch_shape=(None, None, 4))
    m = tw.Input(batch_shape=(None, None))
    node = tw.metrics["perplexity.v1"](s, lg, mask=m)
    log_p = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    token_ce = -np.take_along_axis(log_p, seq[..., None], -1)[..., 0]
    want = np.exp((token_ce * mask).sum() / mask.sum())
    np.testing.assert_allclose(_stream(node, batch_size, seq, logits, mask), want, rtol=1e-5)


def test_bucketed_auc_streams_its_histogram_and_losses_have_no_state():
    labels, scores = _imbalanced()
    y, p = tw.Input(shape=(), name="y"), tw.Input(shape=(), name="p")
    node = tw.metrics["auc.v1"](y, p, num_thresholds=50)
    whole = float(tw.metrics["auc.v1"](labels, scores, num_thresholds=50))
    np.testing.assert_allclose(_stream(node, 13, labels, scores), whole, rtol=1e-6)
    assert tw.losses["binary_cross_entropy.v1"](y, p, from_logits=True).streaming() is None


N_CLASSES = 3
# name -> (options, labels kind, predictions kind): every catalogue metric with a state
CATALOGUE = {
    "iou.v1": ({"threshold": 0.4}, "binary", "probs"),
    "dice.v1": ({"threshold": None}, "binary", "probs"),
    "mean_iou.v1": ({"num_classes": N_CLASSES, "ignore_class": 0}, "ids", "scores"),
    "rmse.v1": ({}, "targets", "scores"),
    "mae.v1": ({}, "targets", "scores"),
    "mse.v1": ({}, "targets", "scores"),
    "r2.v1": ({"class_aggregation": None}, "targets", "scores"),
    "fbeta.v1": ({"beta": 2.0, "average": "weighted"}, "binary", "probs"),
    "true_positives.v1": ({"thresholds": [0.6, 0.2]}, "binary", "probs"),
    "false_positives.v1": ({}, "binary", "probs"),
    "true_negatives.v1": ({"thresholds": 0.7}, "binary", "probs"),
    "false_negatives.v1": ({}, "binary", "probs"),
    "precision_at_recall.v1": ({"recall": 0.5, "num_thresholds": 20}, "binary", "probs"),
    "recall_at_precision.v1": ({"precision": 0.5, "class_id": 2}, "binary", "probs"),
}


def _inputs(labels_kind):
    if labels_kind == "ids":
        return tw.Input(shape=(), dtype="int64"), tw.Input(n_units=N_CLASSES)
    return tw.Input(n_units=N_CLASSES), tw.Input(n_units=N_CLASSES)


@settings(max_examples=3, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    cuts=st.lists(st.integers(1, 29), max_size=4, unique=True).map(sorted),
)
def test_every_catalogue_metric_streams_to_its_whole_set_figure(seed, cuts):
    rng = np.random.default_rng(seed)
    n = 30
    data = {
        "binary": rng.integers(0, 2, size=(n, N_CLASSES)).astype("float32"),
        "probs": rng.random((n, N_CLASSES)).astype("float32"),
        "ids": rng.integers(0, N_CLASSES, size=n),
        "scores": rng.standard_normal((n, N_CLASSES)).astype("float32"),
        "targets": rng.standard_normal((n, N_CLASSES)).astype("float32"),
    }
    weights = rng.random(n).astype("float32")
    bounds = [0, *cuts, n]
    for name, (options, y_kind, p_kind) in CATALOGUE.items():
        y, p = _inputs(y_kind)
        w = tw.Input(shape=(), name="w")
        node = tw.metrics[name](y, p, sample_weight=w, **options)
        state = node.streaming()
        for lo, hi in itertools.pairwise(bounds):
            state.update(data[y_kind][lo:hi], data[p_kind][lo:hi], weights[lo:hi])
        whole = tw.metrics[name](data[y_kind], data[p_kind], sample_weight=weights, **options)
        np.testing.assert_allclose(
            state.result(), whole, rtol=1e-5, atol=1e-5, err_msg=f"{name} over {bounds}"
        )


def test_per_class_states_need_a_known_last_axis():
    y, p = tw.Input(batch_shape=(None, None)), tw.Input(batch_shape=(None, None))
    with pytest.raises(tw.ShapeError, match=r"fbeta: .*one total per class.*Fix: give"):
        tw.metrics["fbeta.v1"](y, p, average="macro").streaming()
    assert tw.metrics["fbeta.v1"](y, p).streaming() is not None  # micro pools the classes
    single = tw.metrics["r2.v1"](tw.Input(shape=()), tw.Input(shape=())).streaming()
    single.update([1.0, 2.0], [1.0, 2.5])
    single.update([3.0], [3.0])
    np.testing.assert_allclose(single.result(), 1.0 - 0.25 / 2.0, rtol=1e-6)


def test_catalogue_states_compile_with_xla():
    y, p = tw.Input(n_units=2), tw.Input(n_units=2)
    state = tw.metrics["precision_at_recall.v1"](y, p, recall=0.5).streaming()
    assert state.jit_compatible
    update = tf.function(state.update, jit_compile=True)
    update(tf.constant([[1.0, 0.0]]), tf.constant([[0.8, 0.3]]))
    update(tf.constant([[1.0, 1.0]]), tf.constant([[0.2, 0.9]]))
    whole = tw.metrics["precision_at_recall.v1"](
        [[1.0, 0.0], [1.0, 1.0]], [[0.8, 0.3], [0.2, 0.9]], recall=0.5
    )
    np.testing.assert_allclose(state.result(), whole, rtol=1e-6)
