"""Attention: numpy oracle, the causal mask, masks taken from padding, reuse, errors."""

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

RNG = np.random.default_rng(31)
Attention = tw.layers["Attention.v1"]


def _seq(name, width=3):
    return tw.Input(batch_shape=(None, None, width), name=name)


def test_dot_scores_match_numpy():
    q, v = _seq("q"), _seq("v", 2)
    k = _seq("k")
    att = Attention(q, k, v)
    query, key, value = (
        RNG.standard_normal(s).astype("float32") for s in ((1, 2, 3), (1, 4, 3), (1, 4, 2))
    )
    scores = query[0] @ key[0].T
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    np.testing.assert_allclose(att.compute(query, key, value)[0], weights @ value[0], rtol=1e-5)


def test_causal_attention_does_not_see_the_future():
    x = _seq("x")
    att = Attention(x, causal=True)
    value = RNG.standard_normal((2, 5, 3)).astype("float32")
    changed = value.copy()
    changed[:, 3:] = 40.0
    a, b = (att.compute(v, v, v).numpy() for v in (value, changed))
    np.testing.assert_allclose(a[:, :3], b[:, :3], rtol=1e-6)


def test_masks_come_from_the_inputs_padding_and_reuse_keeps_their_roles():
    ids = tw.Input(batch_shape=(None, None), dtype=tf.int64, name="ids")
    emb = tw.layers["Lookup.v1"](ids, vocab_size=5, n_units=3, mask_zero=True)
    other = _seq("other")
    att = Attention(other, emb)  # the key's mask hides padded keys; the query has none
    assert att.mask_roles == ("key_mask",) and att.inputs[-1] is emb.padding_mask
    assert att.padding_mask is None
    again = att.reuse_with(other, emb, emb, emb.padding_mask, training=False)
    assert again.mask_roles == ("key_mask",) and not again.training
    plain = att.reuse_with(_seq("q2"), _seq("v2"))
    assert plain.mask_roles == () and len(plain.inputs) == 3
    with pytest.raises(TypeError, match=r"then \['key_mask'\]"):
        att.reuse_with(other, emb, emb, emb.padding_mask, emb.padding_mask)


def test_dropout_only_while_training():
    x = _seq("x")
    att = Attention(x, dropout=0.5)
    value = RNG.standard_normal((2, 4, 3)).astype("float32")
    quiet = att.reuse_with(x, training=False)
    plain = Attention(x)
    np.testing.assert_allclose(
        quiet.compute(value, value, value), plain.compute(value, value, value)
    )
    assert not np.allclose(att.compute(value, value, value), plain.compute(value, value, value))


def test_errors():
    q = _seq("q")
    with pytest.raises(tw.ShapeError, match=r"(?s)same width.*Fix"):
        Attention(q, _seq("k", 4))
    with pytest.raises(tw.ShapeError, match="same number of steps"):
        Attention(q, tw.Input(shape=(3, 3)), tw.Input(shape=(4, 3)))
    with pytest.raises(tw.ArgumentError, match="score_mode"):
        Attention(q, score_mode="cosine")
    with pytest.raises(tw.ArgumentError, match=r"dropout must be in \[0, 1\)"):
        Attention(q, dropout=1.5)
    with pytest.raises(tw.ShapeError, match=r"query_mask must be dense \[batch, t_q\]"):
        Attention(q, query_mask=tw.Input(shape=(), dtype=tf.bool))
