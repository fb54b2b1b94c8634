"""The noise layers: the training switch, reproducible draws, errors."""

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

NOISE = [
    ("SpatialDropout1D.v1", {"rate": 0.5}),
    ("GaussianNoise.v1", {"stddev": 1.0}),
    ("GaussianDropout.v1", {"rate": 0.5}),
    ("AlphaDropout.v1", {"rate": 0.5}),
]


@pytest.mark.parametrize(("name", "options"), NOISE)
def test_off_at_inference_without_being_asked(name, options):
    x = tw.Input(shape=(4, 8), name="x")
    noisy = tw.layers[name](x, **options)
    head = tw.Lambda(tf.identity, noisy)
    value = np.random.default_rng(0).standard_normal((2, 4, 8)).astype("float32")
    assert not np.allclose(tw.compile(head)(value), value)
    inference = tw.with_options(head, training=False)
    np.testing.assert_array_equal(tw.compile(inference)(value).numpy(), value)


@pytest.mark.parametrize(("name", "options"), NOISE)
def test_draws_follow_the_global_seed_and_a_zero_rate_is_the_identity(name, options):
    x = tw.Input(shape=(4, 8))
    value = np.ones((2, 4, 8), "float32")
    outs = []
    for _ in range(2):
        tf.random.set_seed(3)
        outs.append(tw.compile(tw.layers[name](x, **options))(value).numpy())
    np.testing.assert_array_equal(*outs)
    off = {k: 0.0 for k in options}
    np.testing.assert_array_equal(tw.compile(tw.layers[name](x, **off))(value).numpy(), value)


def test_errors():
    x = tw.Input(shape=(4, 8))
    with pytest.raises(tw.ArgumentError, match=r"rate must be a number in \[0, 1\)"):
        tw.layers["GaussianDropout.v1"](x, rate=1.0)
    with pytest.raises(tw.ArgumentError, match="stddev must be a number >= 0"):
        tw.layers["GaussianNoise.v1"](x, stddev=-1)
    with pytest.raises(tw.ShapeError, match="floating-point"):
        tw.layers["AlphaDropout.v1"](tw.Input(shape=(4,), dtype="int32"))
    with pytest.raises(tw.ShapeError, match=r"SpatialDropout2D.*rank 4.*SpatialDropout1D"):
        tw.layers["SpatialDropout2D.v1"](x)
