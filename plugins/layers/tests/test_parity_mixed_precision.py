"""Layers under ``mixed_bfloat16`` against Keras 3 under its ``mixed_bfloat16`` policy: the
same float32 weights in, the same outputs and float32 gradients out, to bfloat16's
precision (both cast inputs and weights to bfloat16 where tensorweave's layers do)."""

import keras
import numpy as np
import tensorflow as tf

import tensorweave as tw


def test_conv_layer_norm_dense_chain_matches_keras_mixed_bfloat16(parity, randn):
    x = tw.Input(shape=(5, 5, 3))
    conv = tw.layers["Conv2D.v1"](x, 4, 3, activation="relu", padding="same")
    norm = tw.layers["LayerNorm.v1"](conv, epsilon=1e-3)
    ours = tw.layers["Linear.v1"](norm, 5)
    ref = keras.Sequential(
        [
            keras.Input((5, 5, 3)),
            keras.layers.Conv2D(4, 3, padding="same", activation="relu", dtype="mixed_bfloat16"),
            keras.layers.LayerNormalization(dtype="mixed_bfloat16"),
            keras.layers.Dense(5, dtype="mixed_bfloat16"),
        ]
    )
    conv_k, norm_k, dense_k = ref.layers
    rng = np.random.default_rng(5)
    for v in (conv_k.bias, norm_k.gamma, norm_k.beta, dense_k.bias):
        v.assign(rng.standard_normal(tuple(v.shape)).astype("float32") * 0.5)
    assert conv_k.kernel.dtype == "float32" and ref(randn(1, 5, 5, 3)).dtype == "bfloat16"
    with tw.Precision("mixed_bfloat16"):
        parity(
            ours,
            lambda t: tf.cast(ref(t), tf.float32),
            [randn(2, 5, 5, 3)],
            weights=[conv.kernel, conv.bias, norm.gamma, norm.beta, ours.weights, ours.bias],
            reference_weights=[
                conv_k.kernel,
                conv_k.bias,
                norm_k.gamma,
                norm_k.beta,
                dense_k.kernel,
                dense_k.bias,
            ],
            rtol=2e-2,
            atol=2e-2,
        )
