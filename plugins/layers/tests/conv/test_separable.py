"""Separable and depthwise convolutions: weights, sharing, errors."""

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw


def test_separable_learns_fewer_weights_than_a_full_convolution():
    x = tw.Input(shape=(8, 8, 16))
    full = tw.layers["Conv2D.v1"](x, 32, 3, add_bias=False, padding="same")
    separable = tw.layers["SeparableConv2D.v1"](x, 32, 3, add_bias=False, padding="same")
    count = lambda layer: sum(int(np.prod(v.shape)) for v in layer.variables)  # noqa: E731
    assert count(separable) == 3 * 3 * 16 + 16 * 32 < count(full) == 3 * 3 * 16 * 32


def test_a_separable_sequence_is_an_image_of_height_one():
    seq = tw.layers["SeparableConv1D.v1"](
        tw.Input(batch_shape=(None, None, 2)), 3, 3, padding="same"
    )
    img = tw.layers["SeparableConv2D.v1"](tw.Input(shape=(1, None, 2)), 3, (1, 3), padding="same")
    img.depthwise_kernel.assign(seq.depthwise_kernel[None])
    img.pointwise_kernel.assign(seq.pointwise_kernel[None])
    value = np.random.default_rng(0).standard_normal((2, 5, 2)).astype("float32")
    np.testing.assert_allclose(
        seq.compute(tf.constant(value)).numpy(),
        img.compute(tf.constant(value[:, None])).numpy()[:, 0],
        rtol=1e-5,
        atol=1e-6,
    )


def test_depthwise_reuse_shares_and_checks_the_channels():
    dw = tw.layers["DepthwiseConv2D.v1"](
        tw.Input(shape=(5, 5, 3)), depth_multiplier=2, padding="same"
    )
    again = dw.reuse_with(tw.Input(shape=(7, 7, 3)), strides=2)
    assert again.kernel is dw.kernel and again.shape == (None, 4, 4, 6)
    with pytest.raises(tw.ShapeError, match="cannot share the kernel"):
        dw.reuse_with(tw.Input(shape=(5, 5, 4)))
    with pytest.raises(tw.ArgumentError, match="depth_multiplier must be a positive integer"):
        tw.layers["DepthwiseConv2D.v1"](
            tw.Input(shape=(5, 5, 3)), depth_multiplier=0, padding="same"
        )
