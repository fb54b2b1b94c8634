"""EinsumDense against Keras 3's ``EinsumDense``: the same kernel and bias shapes from the
same equation, and with the same weights the same outputs and gradients."""

import keras
import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

RNG = np.random.default_rng(4)


@pytest.mark.parametrize(
    ("equation", "output_shape", "bias_axes", "input_shape", "activation"),
    [
        ("abc,cde->abde", (None, 2, 3), "de", (2, 5, 4), "relu"),
        ("...b,bc->...c", 3, "c", (2, 4, 5, 2), None),
        ("abc,cd->abd", (None, 2), None, (2, 3, 4), "tanh"),
        ("ab,bcd->acd", (2, 3), "d", (3, 4), None),
    ],
)
def test_einsum_dense_matches_keras(equation, output_shape, bias_axes, input_shape, activation):
    x = tw.Input(shape=input_shape[1:], name="x")
    ours = tw.layers["EinsumDense.v1"](
        x, equation, output_shape, bias_axes=bias_axes, activation=activation
    )
    ref = keras.layers.EinsumDense(
        equation, output_shape, bias_axes=bias_axes, activation=activation
    )
    value = tf.constant(RNG.standard_normal(input_shape).astype("float32"))
    ref(value)
    assert ours.kernel.shape == ref.kernel.shape
    weights = [(ours.kernel, ref.kernel)]
    if bias_axes:
        assert ours.bias.shape == ref.bias.shape
        ref.bias.assign(RNG.standard_normal(ref.bias.shape).astype("float32"))
        weights.append((ours.bias, ref.bias))
    for mine, theirs in weights:
        mine.assign(theirs)
    results = []
    for fn, side in ((tw.compile(ours), 0), (ref, 1)):
        with tf.GradientTape() as tape:
            tape.watch(value)
            out = fn(value)
            loss = tf.reduce_sum(tf.sin(2.0 * out))
        grads = tape.gradient(loss, [value, *(w[side] for w in weights)])
        results.append([out, *grads])
    assert tuple(results[0][0].shape) == tuple(results[1][0].shape)
    for a, b in zip(*results, strict=True):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-5)
