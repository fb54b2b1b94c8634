"""Confusion counts at thresholds: the four add up to the total weight, the thresholds keep
their order, bad thresholds are refused (parity with Keras: test_parity_metrics)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorweave as tw
from tensorweave_losses.metrics.counts import (
    false_negatives,
    false_positives,
    true_negatives,
    true_positives,
)

COUNTS = (true_positives, false_positives, true_negatives, false_negatives)


@settings(max_examples=8, deadline=None)
@given(
    st.integers(1, 12),
    st.lists(st.floats(0.0, 1.0, width=32), min_size=1, max_size=4),
    st.integers(0, 2**31 - 1),
)
def test_counts_equal_numpy_and_add_up_to_the_total_weight(n, thresholds, seed):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, size=n).astype("float32")
    scores = rng.random(n).astype("float32")
    weights = rng.random(n).astype("float32")
    got = [f(labels, scores, thresholds=thresholds, sample_weight=weights) for f in COUNTS]
    above = scores[None, :] > np.asarray(thresholds, "float32")[:, None]
    pos = labels[None, :] > 0.5
    want = [
        ((above & pos) * weights).sum(-1),
        ((above & ~pos) * weights).sum(-1),
        ((~above & ~pos) * weights).sum(-1),
        ((~above & pos) * weights).sum(-1),
    ]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.sum(got, 0), weights.sum(), rtol=1e-5)


def test_one_threshold_gives_a_scalar_and_a_list_a_vector_in_its_order():
    labels, scores = [1.0, 1.0, 0.0], [0.9, 0.4, 0.6]
    assert true_positives(labels, scores).shape == ()
    np.testing.assert_array_equal(true_positives(labels, scores, thresholds=[0.5, 0.1]), [1, 2])
    np.testing.assert_array_equal(true_negatives(labels, scores, thresholds=[0.7, 0.5]), [1, 0])


def test_bad_thresholds_are_refused():
    with pytest.raises(tw.ArgumentError, match=r"true_positives: thresholds.*Fix:"):
        true_positives([1.0], [0.5], thresholds=[])
    with pytest.raises(tw.ArgumentError, match="false_negatives: thresholds"):
        false_negatives([1.0], [0.5], thresholds=[[0.5]])
