"""The embedding layers against their references: ``ReversibleEmbedding`` against Keras 3's
``ReversibleEmbedding``; the position layers (keras_hub's, with no core Keras counterpart)
against keras_hub's formulas written in plain TensorFlow. Same weights in, same outputs
and gradients out."""

import keras
import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

RNG = np.random.default_rng(8)


def _run(fn, inputs, weights=()):
    """The output, and the gradients of a loss of it (zeros where it does not depend)."""
    with tf.GradientTape() as tape:
        tape.watch(inputs)
        out = fn(*inputs)
        loss = tf.reduce_sum(tf.sin(3.0 * out))
    sources = [*inputs, *weights]
    grads = tape.gradient(loss, sources)
    return [out] + [
        tf.zeros_like(s) if g is None else tf.convert_to_tensor(g)
        for s, g in zip(sources, grads, strict=True)
    ]


def _assert_same(got, want):
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-5)


def _sequence(*shape):
    return tf.constant(RNG.standard_normal(shape).astype("float32"))


def test_position_embedding_matches_keras_hub():
    x = tw.Input(batch_shape=(None, None, 3), name="x")
    layer = tw.layers["PositionEmbedding.v1"](x, seq_len=6)
    value = _sequence(2, 4, 3)

    def reference(v):  # keras_hub: slice the first `time` rows, broadcast to the input
        return tf.broadcast_to(layer.embeddings[: tf.shape(v)[1]], tf.shape(v))

    _assert_same(
        _run(tw.compile(layer), [value], [layer.embeddings]),
        _run(reference, [value], [layer.embeddings]),
    )


def test_sinusoidal_position_embedding_matches_keras_hub():
    x = tw.Input(batch_shape=(None, None, 5), name="x")
    layer = tw.layers["SinusoidalPositionEmbedding.v1"](x, max_wavelength=50.0)
    value = _sequence(2, 7, 5)

    def reference(v):  # keras_hub's SinusoidalPositionEncoding.call, in plain TensorFlow
        steps, width = tf.shape(v)[-2], tf.shape(v)[-1]
        positions = tf.cast(tf.range(steps), tf.float32)
        timescales = tf.pow(
            1.0 / 50.0, tf.cast(2 * (tf.range(width) // 2), tf.float32) / tf.cast(width, tf.float32)
        )
        angles = positions[:, None] * timescales[None, :]
        cos_mask = tf.cast(tf.range(width) % 2, tf.float32)
        return tf.broadcast_to(
            tf.sin(angles) * (1 - cos_mask) + tf.cos(angles) * cos_mask, tf.shape(v)
        )

    _assert_same(_run(tw.compile(layer), [value]), _run(reference, [value]))


@pytest.mark.parametrize("shape", [(2, 5, 6), (2, 4, 3, 4)])
def test_rotary_embedding_matches_keras_hub(shape):
    x = tw.Input(batch_shape=(None, None, *shape[2:]), name="x")
    layer = tw.layers["RotaryEmbedding.v1"](x, max_wavelength=100.0, scaling_factor=2.0)
    value = _sequence(*shape)

    def reference(v):  # keras_hub's RotaryEmbedding.call (sequence axis 1, features last)
        width = v.shape[-1]
        inverse = 1.0 / (100.0 ** (tf.range(0, width, 2, dtype=tf.float32) / width))
        positions = tf.range(tf.shape(v)[1], dtype=tf.float32) / 2.0
        freq = tf.einsum("i,j->ij", positions, inverse)
        embedding = tf.reshape(tf.stack((freq, freq), axis=-2), (-1, width))
        for axis in range(2, len(v.shape) - 1):
            embedding = tf.expand_dims(embedding, axis - 1)
        x1, x2 = tf.split(v, 2, axis=-1)
        half = tf.reshape(tf.stack((-x2, x1), axis=-2), tf.shape(v))
        return v * tf.cos(embedding) + half * tf.sin(embedding)

    _assert_same(_run(tw.compile(layer), [value]), _run(reference, [value]))


@pytest.mark.parametrize("tie_weights", [True, False])
def test_reversible_embedding_matches_keras(tie_weights):
    ids = tw.Input(batch_shape=(None, None), dtype=tf.int64, name="ids")
    emb = tw.layers["ReversibleEmbedding.v1"](
        ids, vocab_size=7, n_units=4, tie_weights=tie_weights, logit_soft_cap=3.0
    )
    hidden = tw.Input(batch_shape=(None, None, 4), name="hidden")
    logits = emb.reuse_with(hidden, reverse=True)
    ref = keras.layers.ReversibleEmbedding(7, 4, tie_weights=tie_weights, logit_soft_cap=3.0)
    ref.build((None, None))
    names = ["embeddings"] + ([] if tie_weights else ["reverse_embeddings"])
    for name in names:
        getattr(ref, name).assign(getattr(emb, name))
    ours = [getattr(emb, n) for n in names]
    theirs = [getattr(ref, n) for n in names]
    id_values = np.array([[1, 6, 0], [3, 3, 2]], "int64")
    forward = tw.compile(emb)(id_values)
    np.testing.assert_allclose(forward.numpy(), ref(id_values).numpy(), rtol=1e-6)
    states = _sequence(2, 3, 4)
    _assert_same(
        _run(tw.compile(logits), [states], ours),
        _run(lambda h: ref(h, reverse=True), [states], theirs),
    )
