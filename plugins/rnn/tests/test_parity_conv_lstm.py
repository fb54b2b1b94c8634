"""ConvLSTM2D against Keras 3's ``ConvLSTM2D``: same weights in, same outputs and
gradients out (the last step and every step, strided and padded convolutions)."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

RNG = np.random.default_rng(11)
WEIGHTS = ("kernel", "recurrent_kernel", "bias")


@pytest.mark.parametrize(
    "options",
    [
        {"padding": "same", "return_sequences": True},
        {"padding": "valid", "strides": 2, "return_sequences": False},
    ],
)
def test_conv_lstm2d_matches_keras(options):
    stride = options.get("strides", 1)
    ref = keras.layers.ConvLSTM2D(
        3,
        3,
        strides=stride,
        padding=options["padding"],
        return_sequences=options["return_sequences"],
    )
    frames = RNG.standard_normal((2, 4, 7, 6, 2)).astype("float32")
    ref(frames)
    seq = tw.Input(batch_shape=(None, None, 7, 6, 2), name="frames")
    conv = tw.layers["ConvLSTM2D.v1"](seq, n_units=3, kernel_size=3, **options)
    for name in WEIGHTS:
        getattr(conv.cell, name).assign(getattr(ref.cell, name))
    run = tw.compile(conv)
    results = []
    for fn, layer in ((run, conv.cell), (ref, ref.cell)):
        value = tf.constant(frames)
        with tf.GradientTape() as tape:
            tape.watch(value)
            out = fn(value)
            loss = tf.reduce_sum(tf.sin(3.0 * out))
        grads = tape.gradient(loss, [value, *(getattr(layer, n) for n in WEIGHTS)])
        results.append([out.numpy(), *(g.numpy() for g in grads)])
    for got, want in zip(*results, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
