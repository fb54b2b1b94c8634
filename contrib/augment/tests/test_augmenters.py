"""``AugmentJitter.v1`` and ``AugmentScale.v1`` against what they promise, checked in numpy."""

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorweave as tw

JITTER = "tensorweave-augment:AugmentJitter.v1"
SCALE = "tensorweave-augment:AugmentScale.v1"


def test_jitter_adds_noise_of_the_asked_deviation():
    x = np.zeros((400, 50), "float32")
    noise = np.asarray(
        tw.registry("augmenters")[JITTER](stddev=0.3)(x, tf.random.Generator.from_seed(1))
    )
    assert abs(noise.mean()) < 0.01 and noise.std() == pytest.approx(0.3, rel=0.02)


@settings(max_examples=10)
@given(
    rows=st.integers(1, 6),
    width=st.integers(1, 5),
    low=st.floats(0.1, 2.0),
    span=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**16),
)
def test_scale_multiplies_each_sample_by_one_factor_in_range(rows, width, low, span, seed):
    x = np.random.default_rng(seed).uniform(1.0, 2.0, size=(rows, width)).astype("float32")
    y = np.asarray(
        tw.registry("augmenters")[SCALE](low=low, high=low + span)(
            x, tf.random.Generator.from_seed(seed)
        )
    )
    factors = y / x
    np.testing.assert_allclose(factors, factors[:, :1].repeat(width, axis=1), rtol=1e-5)
    assert np.all(factors >= low - 1e-5) and np.all(factors <= low + span + 1e-5)


def test_options_that_cannot_mean_anything_are_refused():
    with pytest.raises(tw.ArgumentError, match="stddev must be >= 0"):
        tw.registry("augmenters")[JITTER](stddev=-1.0)
    with pytest.raises(tw.ArgumentError, match="low must be <= high"):
        tw.registry("augmenters")[SCALE](low=2.0, high=1.0)
