"""LocalResponseNorm: the formula over neighbouring channels, float32 under mixed precision."""

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave_layers import LocalResponseNorm


def numpy_lrn(x, r, k, alpha, beta):
    channels = x.shape[-1]
    out = np.empty_like(x)
    for c in range(channels):
        window = x[..., max(0, c - r) : c + r + 1]
        out[..., c] = x[..., c] / (k + alpha * np.sum(window**2, axis=-1)) ** beta
    return out


def test_matches_the_formula_with_the_cifar10_settings():
    x = np.random.default_rng(0).normal(size=(2, 3, 3, 7)).astype("float32")
    node = tw.layers["LocalResponseNorm.v1"](
        tw.Input(shape=(3, 3, 7)), depth_radius=4, k=1.0, alpha=0.001 / 9.0, beta=0.75
    )
    np.testing.assert_allclose(
        tw.compile(node)(x), numpy_lrn(x, 4, 1.0, 0.001 / 9.0, 0.75), rtol=1e-5
    )


def test_computes_in_float32_under_mixed_bfloat16():
    x = tw.Input(shape=(2, 2, 3), name="x")
    lrn = LocalResponseNorm(x, depth_radius=1)
    policy = tw.Precision("mixed_bfloat16")
    assert policy.apply(lrn, tf.ones([1, 2, 2, 3], tf.bfloat16)).dtype == tf.float32


def test_refuses_inputs_that_are_not_images():
    with pytest.raises(tw.ShapeError, match="LocalResponseNorm expects an input of rank 4"):
        LocalResponseNorm(tw.Input(n_units=3))
