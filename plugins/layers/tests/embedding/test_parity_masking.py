"""Padding masks against Keras 3's masking: ``Lookup(mask_zero=True)`` feeding global
pooling and attention gives what ``keras.layers.Embedding(mask_zero=True)`` feeding the
Keras layer gives (same weights in, same outputs and gradients out), with no ``mask=``
wired by hand; an explicit ``mask=`` wins; the masked max (which Keras's pooling does not
mask) against numpy."""

import keras
import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

RNG = np.random.default_rng(3)
VOCAB, WIDTH = 7, 4
IDS = np.array([[3, 1, 4, 0, 0], [2, 6, 5, 1, 0]], "int64")
QUERY_IDS = np.array([[5, 2, 0], [1, 1, 3]], "int64")


def _lookup(ids, table):
    layer = tw.layers["Lookup.v1"](ids, vocab_size=VOCAB, n_units=WIDTH, mask_zero=True)
    layer.embeddings.assign(table)
    return layer


def _keras_embedding(table):
    embedding = keras.layers.Embedding(VOCAB, WIDTH, mask_zero=True)
    embedding.build((None, None))
    embedding.embeddings.assign(table)
    return embedding


def _outputs_and_gradients(fn, variables):
    with tf.GradientTape() as tape:
        out = fn()
        loss = tf.reduce_sum(tf.sin(3.0 * out))
    return out.numpy(), [tf.convert_to_tensor(g).numpy() for g in tape.gradient(loss, variables)]


def _assert_same(a, b):
    (out_a, grads_a), (out_b, grads_b) = a, b
    np.testing.assert_allclose(out_a, out_b, rtol=1e-5, atol=1e-5)
    for ga, gb in zip(grads_a, grads_b, strict=True):
        np.testing.assert_allclose(ga, gb, rtol=1e-5, atol=1e-5)


def test_masked_global_average_matches_keras():
    table = RNG.standard_normal((VOCAB, WIDTH)).astype("float32")
    ids = tw.Input(batch_shape=(None, None), dtype=tf.int64, name="ids")
    emb = _lookup(ids, table)
    pooled = tw.layers["GlobalAvgPool.v1"](emb)
    assert pooled.inputs == (emb, emb.padding_mask)  # wired by the layers, not by hand
    run = tw.compile(pooled)
    embedding = _keras_embedding(table)
    pool = keras.layers.GlobalAveragePooling1D()
    _assert_same(
        _outputs_and_gradients(lambda: run(IDS), [emb.embeddings]),
        _outputs_and_gradients(lambda: pool(embedding(IDS)), [embedding.embeddings]),
    )


def test_masked_dot_product_attention_matches_keras():
    table = RNG.standard_normal((VOCAB, WIDTH)).astype("float32")
    q_ids = tw.Input(batch_shape=(None, None), dtype=tf.int64, name="q_ids")
    v_ids = tw.Input(batch_shape=(None, None), dtype=tf.int64, name="v_ids")
    q = _lookup(q_ids, table)
    v = q.reuse_with(v_ids)  # one table, as one Keras Embedding for both
    att = tw.layers["Attention.v1"](q, v, use_scale=True)
    assert att.mask_roles == ("key_mask", "query_mask") and att.padding_mask is q.padding_mask
    att.scale.assign(0.8)
    run = tw.compile(att)
    embedding = _keras_embedding(table)
    ref = keras.layers.Attention(use_scale=True)
    ref([embedding(QUERY_IDS), embedding(IDS)])
    ref.scale.assign(0.8)
    _assert_same(
        _outputs_and_gradients(lambda: run(QUERY_IDS, IDS), [q.embeddings, att.scale]),
        _outputs_and_gradients(
            lambda: ref([embedding(QUERY_IDS), embedding(IDS)]), [embedding.embeddings, ref.scale]
        ),
    )


def test_mhattention_takes_the_key_padding_mask_as_keras_takes_the_value_mask():
    table = RNG.standard_normal((VOCAB, WIDTH)).astype("float32")
    q_ids = tw.Input(batch_shape=(None, None), dtype=tf.int64, name="q_ids")
    v_ids = tw.Input(batch_shape=(None, None), dtype=tf.int64, name="v_ids")
    q = _lookup(q_ids, table)
    v = q.reuse_with(v_ids)  # one table, as one Keras Embedding for both
    att = tw.layers["MHAttention.v1"](q, v, n_heads=2)
    assert att.inputs[-1] is v.padding_mask and att.padding_mask is q.padding_mask
    ref = keras.layers.MultiHeadAttention(num_heads=2, key_dim=2)
    embedding = _keras_embedding(table)
    ref(embedding(QUERY_IDS), embedding(IDS))
    for role in ("query", "key", "value", "output"):
        dense = getattr(ref, f"_{role}_dense")
        dense.kernel.assign(getattr(att, f"{role}_kernel"))
        dense.bias.assign(getattr(att, f"{role}_bias"))
    real = tf.constant(QUERY_IDS != 0, tf.float32)[:, :, None]  # Keras blurs padded queries
    run = tw.compile(att)
    _assert_same(
        _outputs_and_gradients(lambda: run(QUERY_IDS, IDS) * real, [q.embeddings]),
        _outputs_and_gradients(
            lambda: ref(embedding(QUERY_IDS), embedding(IDS)) * real, [embedding.embeddings]
        ),
    )


def test_masked_global_max_skips_padding_and_an_empty_row_gives_zeros():
    x = tw.Input(batch_shape=(None, None, 2), name="x")
    mask = tw.Input(batch_shape=(None, None), dtype=tf.bool, name="mask")
    pooled = tw.layers["GlobalMaxPool.v1"](x, mask=mask)
    value = RNG.standard_normal((3, 4, 2)).astype("float32") - 5.0
    real = np.array([[1, 1, 0, 0], [0, 0, 0, 1], [0, 0, 0, 0]], bool)
    want = np.where(real[..., None], value, -np.inf).max(axis=1)
    want[2] = 0.0
    np.testing.assert_allclose(tw.compile(pooled)(value, real).numpy(), want, rtol=1e-6)


def test_an_explicit_mask_wins_over_the_padding_mask():
    ids = tw.Input(batch_shape=(None, None), dtype=tf.int64, name="ids")
    emb = tw.layers["Lookup.v1"](ids, vocab_size=VOCAB, n_units=WIDTH, mask_zero=True)
    first = tw.ops.equal(tw.ops.range(tw.ops.shape(ids)[1]), 0)[None, :]  # the first step only
    pooled = tw.layers["GlobalAvgPool.v1"](emb, mask=first)
    assert emb.padding_mask not in pooled.inputs
    out = tw.compile(pooled)(IDS).numpy()
    np.testing.assert_allclose(out, emb.embeddings.numpy()[IDS[:, 0]], rtol=1e-6)


def test_a_mask_of_the_wrong_shape_is_refused():
    x = tw.Input(batch_shape=(None, None, 2), name="x")
    with pytest.raises(tw.ShapeError, match=r"(?s)mask .*shaped like the input.*Fix"):
        tw.layers["GlobalAvgPool.v1"](x, mask=tw.Input(shape=(), dtype=tf.bool))
