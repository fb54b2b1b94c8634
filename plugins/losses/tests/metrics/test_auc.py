"""AUC: exact against a pairwise numpy oracle, bucketed against keras.metrics.AUC."""

import keras
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorweave as tw
from tensorweave_losses.metrics.auc import auc


def np_auc(labels, scores, weights):
    pos, neg = labels > 0.5, labels <= 0.5
    wp, wn = weights[pos], weights[neg]
    sp, sn = scores[pos], scores[neg]
    wins = (sp[:, None] > sn[None, :]) + 0.5 * (sp[:, None] == sn[None, :])
    den = wp.sum() * wn.sum()
    return (wp[:, None] * wn[None, :] * wins).sum() / den if den else 0.0


@settings(max_examples=15)
@given(st.integers(1, 40), st.integers(0, 2**31 - 1), st.booleans(), st.booleans())
def test_exact_against_pairwise_numpy(n, seed, ties, weighted):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, size=n).astype("float32")
    scores = rng.random(n).astype("float32")
    if ties:
        scores = np.round(scores * 4) / 4
    w = rng.random(n).astype("float32") if weighted else np.ones(n, "float32")
    got = auc(labels, scores, sample_weight=w if weighted else None)
    np.testing.assert_allclose(got, np_auc(labels, scores, w), rtol=1e-5, atol=1e-6)


@settings(max_examples=8)
@given(st.integers(2, 60), st.integers(0, 2**31 - 1), st.sampled_from([3, 10, 200]))
def test_bucketed_against_keras(n, seed, num_thresholds):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, size=n).astype("float32")
    scores = rng.random(n).astype("float32")
    w = rng.random(n).astype("float32")
    metric = keras.metrics.AUC(num_thresholds=num_thresholds)
    metric.update_state(labels, scores, sample_weight=w)
    got = auc(labels, scores, num_thresholds=num_thresholds, sample_weight=w)
    np.testing.assert_allclose(got, float(metric.result()), rtol=1e-5, atol=1e-6)


def test_edges_and_layer():
    assert float(auc([1.0, 1.0], [0.2, 0.3])) == 0.0  # no negatives
    assert float(auc([0.0, 1.0], [1e4, -1e4])) == 0.0
    assert float(auc([0.0, 1.0], [0.5, 0.5])) == 0.5
    y, s = tw.Input(n_units=1), tw.Input(n_units=1)
    a, b = np.array([[0.0], [1.0], [1.0]], "float32"), np.array([[0.3], [0.4], [0.1]], "float32")
    np.testing.assert_allclose(tw.compile(auc(y, s))(a, b), 0.5)
