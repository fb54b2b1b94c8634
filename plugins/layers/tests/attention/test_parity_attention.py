"""The attention layers against Keras 3: ``Attention``, ``AdditiveAttention`` and
``GroupQueryAttention`` with the same weights give the same outputs and the same gradients
(of the inputs and of every weight), with masks and the causal mask."""

import keras
import numpy as np
import tensorflow as tf

import tensorweave as tw

RNG = np.random.default_rng(21)


def _value(*shape):
    return tf.constant(RNG.standard_normal(shape).astype("float32"))


def _run(fn, inputs, weights):
    with tf.GradientTape() as tape:
        tape.watch(inputs)
        out = fn(*inputs)
        loss = tf.reduce_sum(tf.sin(3.0 * out))
    return [out, *tape.gradient(loss, [*inputs, *weights])]


def _assert_same(got, want):
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-5)


QUERY_MASK = np.array([[1, 1, 0], [1, 1, 1]], bool)
VALUE_MASK = np.array([[1, 1, 1, 0], [1, 0, 1, 1]], bool)


def _masked_inputs(width, value_width=None):
    q = tw.Input(batch_shape=(None, None, width), name="q")
    v = tw.Input(batch_shape=(None, None, value_width or width), name="v")
    qm = tw.Input(batch_shape=(None, None), dtype=tf.bool, name="qm")
    vm = tw.Input(batch_shape=(None, None), dtype=tf.bool, name="vm")
    return q, v, qm, vm


def test_attention_matches_keras_with_masks_scale_and_the_causal_mask():
    q, v, qm, vm = _masked_inputs(4)
    att = tw.layers["Attention.v1"](q, v, query_mask=qm, key_mask=vm, use_scale=True, causal=True)
    att.scale.assign(0.6)
    ref = keras.layers.Attention(use_scale=True)
    query, value = _value(2, 3, 4), _value(2, 4, 4)
    ref([query, value])
    ref.scale.assign(0.6)
    run = tw.compile(tw.Graph.build([q, v, qm, vm], att))
    got = _run(lambda a, b: run(a, b, QUERY_MASK, VALUE_MASK), [query, value], [att.scale])
    want = _run(
        lambda a, b: ref([a, b], mask=[QUERY_MASK, VALUE_MASK], use_causal_mask=True),
        [query, value],
        [ref.scale],
    )
    _assert_same(got, want)


def test_concat_scores_with_a_separate_key_match_keras():
    q = tw.Input(batch_shape=(None, None, 3), name="q")
    k = tw.Input(batch_shape=(None, None, 3), name="k")
    v = tw.Input(batch_shape=(None, None, 2), name="v")
    att = tw.layers["Attention.v1"](q, k, v, score_mode="concat", use_scale=True)
    att.scale.assign(1.3)
    att.concat_score_weight.assign(0.7)
    ref = keras.layers.Attention(score_mode="concat", use_scale=True)
    query, key, value = _value(2, 3, 3), _value(2, 4, 3), _value(2, 4, 2)
    ref([query, value, key])  # Keras's order: query, value, key
    ref.scale.assign(1.3)
    ref.concat_score_weight.assign(0.7)
    run = tw.compile(att)
    weights = [att.scale, att.concat_score_weight]
    got = _run(run, [query, key, value], weights)
    want = _run(
        lambda a, b, c: ref([a, c, b]), [query, key, value], [ref.scale, ref.concat_score_weight]
    )
    _assert_same(got, want)


def test_additive_attention_matches_keras():
    q, v, qm, vm = _masked_inputs(4)
    att = tw.layers["AdditiveAttention.v1"](q, v, query_mask=qm, key_mask=vm)
    ref = keras.layers.AdditiveAttention()
    query, value = _value(2, 3, 4), _value(2, 4, 4)
    ref([query, value])
    ref.scale.assign(att.scale)
    run = tw.compile(tw.Graph.build([q, v, qm, vm], att))
    got = _run(lambda a, b: run(a, b, QUERY_MASK, VALUE_MASK), [query, value], [att.scale])
    want = _run(
        lambda a, b: ref([a, b], mask=[QUERY_MASK, VALUE_MASK]), [query, value], [ref.scale]
    )
    _assert_same(got, want)


def test_group_query_attention_matches_keras():
    q = tw.Input(batch_shape=(None, None, 6), name="q")
    kv = tw.Input(batch_shape=(None, None, 5), name="kv")
    mask = tw.Input(batch_shape=(None, None), dtype=tf.bool, name="mask")
    gqa = tw.layers["GroupQueryAttention.v1"](
        q, kv, kv, mask, n_heads=4, n_kv_heads=2, head_dim=3, causal=True
    )
    ref = keras.layers.GroupQueryAttention(head_dim=3, num_query_heads=4, num_key_value_heads=2)
    query, value = _value(2, 4, 6), _value(2, 4, 5)
    ref(query, value)
    pairs = []
    for role, dense in (
        ("query", ref._query_dense),
        ("key", ref._key_dense),
        ("value", ref._value_dense),
        ("output", ref._output_dense),
    ):
        bias = RNG.standard_normal(dense.bias.shape).astype("float32")
        for ours, theirs, start in (
            (getattr(gqa, f"{role}_kernel"), dense.kernel, None),
            (getattr(gqa, f"{role}_bias"), dense.bias, bias),
        ):
            theirs.assign(ours if start is None else start)
            ours.assign(theirs)
            pairs.append((ours, theirs))
    run = tw.compile(tw.Graph.build([q, kv, mask], gqa))
    keys = VALUE_MASK
    got = _run(lambda a, b: run(a, b, keys), [query, value], [p[0] for p in pairs])
    want = _run(
        lambda a, b: ref(a, b, value_mask=keys, use_causal_mask=True),
        [query, value],
        [p[1] for p in pairs],
    )
    _assert_same(got, want)
