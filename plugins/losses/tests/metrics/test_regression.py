"""Regression metrics: errors as weighted means over examples, R² against scikit-learn and on
constant labels (parity with Keras: test_parity_metrics)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

import tensorweave as tw
from tensorweave_losses.metrics.regression import (
    StreamingError,
    mean_absolute_error,
    mean_squared_error,
    r2_score,
    root_mean_squared_error,
)


@settings(max_examples=6, deadline=None)
@given(
    st.integers(2, 12),
    st.integers(1, 3),
    st.integers(0, 2**31 - 1),
    st.sampled_from(["uniform_average", "variance_weighted_average", None]),
)
def test_errors_and_r2_equal_sklearn(n, outputs, seed, aggregation):
    rng = np.random.default_rng(seed)
    y = rng.standard_normal((n, outputs)).astype("float32")
    p = rng.standard_normal((n, outputs)).astype("float32")
    w = rng.random(n).astype("float32")
    np.testing.assert_allclose(
        mean_squared_error(y, p, sample_weight=w),
        skm.mean_squared_error(y, p, sample_weight=w),
        rtol=1e-5,
    )
    np.testing.assert_allclose(
        root_mean_squared_error(y, p, sample_weight=w),
        np.sqrt(skm.mean_squared_error(y, p, sample_weight=w)),
        rtol=1e-5,
    )
    np.testing.assert_allclose(
        mean_absolute_error(y, p, sample_weight=w),
        skm.mean_absolute_error(y, p, sample_weight=w),
        rtol=1e-5,
    )
    sk = {"uniform_average": "uniform_average", "variance_weighted_average": "variance_weighted"}
    want = skm.r2_score(y, p, sample_weight=w, multioutput=sk.get(aggregation, "raw_values"))
    got = r2_score(y, p, class_aggregation=aggregation, sample_weight=w)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_rmse_of_all_batches_is_not_a_mean_of_batch_roots():
    state = StreamingError("rmse")
    state.update([[0.0]], [[3.0]])
    state.update([[0.0]], [[4.0]])
    np.testing.assert_allclose(state.result(), np.sqrt((9 + 16) / 2), rtol=1e-6)


def test_r2_of_constant_labels_and_the_adjusted_score():
    assert float(r2_score([2.0, 2.0], [2.0, 2.0])) == 1.0
    assert float(r2_score([2.0, 2.0], [1.0, 3.0])) == 0.0
    y, p = np.array([1.0, 2.0, 3.0, 4.0, 6.0]), np.array([1.5, 2.0, 2.5, 4.5, 5.5])
    raw = float(r2_score(y, p))
    np.testing.assert_allclose(
        r2_score(y, p, num_regressors=2), 1 - (1 - raw) * (5 - 1) / (5 - 2 - 1), rtol=1e-5
    )
    assert float(r2_score(y, p, num_regressors=4)) == pytest.approx(raw)  # too few entries


def test_bad_r2_options_are_refused():
    with pytest.raises(tw.ArgumentError, match="r2: unknown class_aggregation 'mean'"):
        r2_score([1.0, 2.0], [1.0, 2.0], class_aggregation="mean")
    with pytest.raises(tw.ArgumentError, match="r2: num_regressors must be >= 0"):
        r2_score([1.0, 2.0], [1.0, 2.0], num_regressors=-1)
