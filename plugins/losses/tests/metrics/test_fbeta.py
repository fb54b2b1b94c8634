"""F-beta: F1 at beta=1, the averages against scikit-learn, per-class scores, bad options
(parity with keras.metrics.FBetaScore: test_parity_metrics)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

import tensorweave as tw
from tensorweave_losses.metrics.classification import f1
from tensorweave_losses.metrics.fbeta import StreamingFBeta, fbeta


@settings(max_examples=6, deadline=None)
@given(
    st.integers(0, 2**31 - 1),
    st.sampled_from([0.5, 1.0, 2.0]),
    st.sampled_from(["micro", "macro", "weighted", None]),
)
def test_averages_equal_sklearn(seed, beta, average):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, size=(20, 3))
    scores = rng.random((20, 3)).astype("float32")
    weights = rng.random(20).astype("float32")
    got = fbeta(labels, scores, beta=beta, average=average, sample_weight=weights)
    want = skm.fbeta_score(
        labels,
        scores > 0.5,
        beta=beta,
        average=average,
        sample_weight=weights,
        zero_division=0.0,
    )
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_beta_one_micro_is_f1_and_none_threshold_takes_the_top_score():
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 2, size=(9, 4)).astype("float32")
    scores = rng.random((9, 4)).astype("float32")
    np.testing.assert_allclose(fbeta(labels, scores), f1(labels, scores), rtol=1e-6)
    one_hot = np.eye(3, dtype="float32")[[0, 1, 2, 2]]
    top = np.array([[0.5, 0.2, 0.3], [0.1, 0.6, 0.3], [0.3, 0.3, 0.4], [0.7, 0.2, 0.1]])
    per_class = fbeta(one_hot, top, threshold=None, average=None).numpy()
    np.testing.assert_allclose(per_class, [2 / 3, 1.0, 2 / 3], rtol=1e-6)


def test_bad_options_are_refused():
    with pytest.raises(tw.ArgumentError, match="fbeta: beta must be > 0"):
        fbeta([1.0], [0.5], beta=0.0)
    with pytest.raises(tw.ArgumentError, match="fbeta: unknown average 'mean'"):
        StreamingFBeta(3, average="mean")
