"""Operating points against a brute-force search over the threshold grid; no reachable point
gives 0; bad targets are refused (parity with Keras: test_parity_metrics)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorweave as tw
from tensorweave_losses.metrics.precision_recall import (
    grid,
    precision_at_recall,
    recall_at_precision,
)


def _brute_force(labels, scores, weights, n, need, value):
    best = 0.0
    for t in grid(n, "test"):
        above = scores > np.float32(t)
        tp = (weights * labels * above).sum()
        fp = (weights * (1 - labels) * above).sum()
        fn = (weights * labels * ~above).sum()
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
        constrained, found = (recall, precision) if need == "recall" else (precision, recall)
        if constrained >= value:
            best = max(best, found)
    return best


@settings(max_examples=8, deadline=None)
@given(st.integers(2, 30), st.sampled_from([1, 2, 7, 50]), st.floats(0.0, 1.0), st.integers(0, 99))
def test_equal_a_search_over_every_threshold(n, num_thresholds, target, seed):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, size=n).astype("float32")
    scores = rng.random(n).astype("float32")
    weights = rng.random(n).astype("float32")
    for fn, need, option in [
        (precision_at_recall, "recall", "recall"),
        (recall_at_precision, "precision", "precision"),
    ]:
        got = fn(
            labels,
            scores,
            num_thresholds=num_thresholds,
            sample_weight=weights,
            **{option: target},
        )
        want = _brute_force(labels, scores, weights, num_thresholds, need, target)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=need)


def test_no_reachable_operating_point_gives_zero():
    assert float(recall_at_precision([0.0, 0.0], [0.9, 0.8], precision=0.5)) == 0.0
    assert float(precision_at_recall([0.0, 0.0], [0.9, 0.8], recall=0.5)) == 0.0


def test_bad_targets_and_grids_are_refused():
    with pytest.raises(tw.ArgumentError, match=r"precision_at_recall: recall must be in \[0, 1\]"):
        precision_at_recall([1.0], [0.5], recall=1.5)
    with pytest.raises(tw.ArgumentError, match="recall_at_precision: num_thresholds"):
        recall_at_precision([1.0], [0.5], precision=0.5, num_thresholds=0)
