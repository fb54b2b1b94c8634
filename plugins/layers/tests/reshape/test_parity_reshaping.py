"""The shape and resampling layers against Keras 3 (or ``tf.pad``/``tf.nn.depth_to_space``
and ``tf.image.resize`` where Keras has none): the same outputs and input gradients."""

import keras
import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

K = keras.layers
CASES = [
    # (our name, our options, the reference, input shape)
    ("Flatten.v1", {}, K.Flatten(), (2, 3, 4, 2)),
    ("RepeatVector.v1", {"n": 3}, K.RepeatVector(3), (2, 4)),
    ("UpSampling1D.v1", {"size": 3}, K.UpSampling1D(3), (2, 4, 2)),
    ("UpSampling2D.v1", {"size": (2, 3)}, K.UpSampling2D((2, 3)), (2, 3, 4, 2)),
    ("UpSampling2D.v1", {"size": (3, 2), "interpolation": "bilinear"},
     K.UpSampling2D((3, 2), interpolation="bilinear"), (2, 3, 4, 2)),
    ("UpSampling3D.v1", {"size": (1, 2, 3)}, K.UpSampling3D((1, 2, 3)), (2, 2, 3, 2, 2)),
    ("ZeroPadding1D.v1", {"padding": (1, 2)}, K.ZeroPadding1D((1, 2)), (2, 4, 3)),
    ("ZeroPadding2D.v1", {"padding": ((1, 0), 2)}, K.ZeroPadding2D(((1, 0), 2)), (2, 3, 4, 2)),
    ("ZeroPadding3D.v1", {"padding": 1}, K.ZeroPadding3D(1), (2, 2, 3, 2, 2)),
    ("Cropping1D.v1", {"cropping": (2, 1)}, K.Cropping1D((2, 1)), (2, 6, 3)),
    ("Cropping2D.v1", {"cropping": ((1, 0), 2)}, K.Cropping2D(((1, 0), 2)), (2, 4, 6, 2)),
    ("Cropping3D.v1", {"cropping": (1, 0, (0, 1))}, K.Cropping3D((1, 0, (0, 1))),
     (2, 3, 2, 3, 2)),
    ("Pad.v1", {"padding": [(1, 2), (2, 1)], "mode": "reflect"},
     lambda x: tf.pad(x, [(0, 0), (1, 2), (2, 1)], mode="REFLECT"), (2, 4, 3)),
    ("Pad.v1", {"padding": (2, (0, 1), 0), "mode": "symmetric"},
     lambda x: tf.pad(x, [(0, 0), (2, 2), (0, 1), (0, 0)], mode="SYMMETRIC"), (2, 3, 3, 2)),
    ("Pad.v1", {"padding": 1, "constant_values": -2.0},
     lambda x: tf.pad(x, [(0, 0), (1, 1), (1, 1)], constant_values=-2.0), (2, 2, 3)),
    ("DepthToSpace.v1", {"block_size": 2, "activation": "tanh"},
     lambda x: tf.tanh(tf.nn.depth_to_space(x, 2)), (2, 2, 3, 8)),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "options", "ref", "shape"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)]
)
def test_reshaping_matches_the_reference(parity, randn, name, options, ref, shape):
    ours = tw.layers[name](tw.Input(shape=shape[1:]), **options)
    parity(ours, ref, [randn(*shape)])


@pytest.mark.parametrize(
    ("name", "shape"), [("UpSampling1D.v1", (2, 3, 2)), ("UpSampling3D.v1", (2, 2, 3, 2, 2))]
)
def test_linear_upsampling_is_tf_image_resize_along_each_axis(randn, name, shape):
    """Keras upsamples sequences and volumes by repetition only; ours also interpolates, as
    ``tf.image.resize`` (bilinear, half-pixel centres) does per pair of axes."""
    value = randn(*shape)
    ours = tw.layers[name](tw.Input(shape=shape[1:]), 2, interpolation="bilinear")
    got = tw.compile(ours)(value).numpy()
    if len(shape) == 3:  # a sequence is an image of height 1
        want = tf.image.resize(value[:, None], (1, shape[1] * 2))[:, 0]
    else:  # trilinear: (height, width) of each depth slice, then (depth, 1) of the result
        b, d, h, w, c = shape
        hw = tf.image.resize(tf.reshape(value, (b * d, h, w, c)), (h * 2, w * 2))
        hw = tf.reshape(hw, (b, d, h * 2 * w * 2, c))
        want = tf.reshape(tf.image.resize(hw, (d * 2, h * 2 * w * 2)), (b, d * 2, h * 2, w * 2, c))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert got.shape[1:] == tuple(ours.shape[1:])
