"""MHAttention against Keras 3 MultiHeadAttention and numpy; the causal mask; errors."""

import keras
import numpy as np
import pytest

import tensorweave as tw

MHAttention = tw.layers["MHAttention.v1"]
RNG = np.random.default_rng(7)


def _seq(batch, steps, width):
    return RNG.standard_normal((batch, steps, width)).astype("float32")


def _keras_twin(att, q, k, v):
    ref = keras.layers.MultiHeadAttention(
        num_heads=att.n_heads,
        key_dim=att.head_dim,
        value_dim=att.head_dim,
        output_shape=att.n_out,
    )
    ref(q, v, key=k)  # build
    for role, dense in (
        ("query", ref._query_dense),
        ("key", ref._key_dense),
        ("value", ref._value_dense),
        ("output", ref._output_dense),
    ):
        dense.kernel.assign(getattr(att, f"{role}_kernel"))
        bias = RNG.standard_normal(dense.bias.shape).astype("float32")
        dense.bias.assign(bias)
        getattr(att, f"{role}_bias").assign(bias)
    return ref


@pytest.mark.parametrize("causal", [False, True])
def test_matches_keras_multi_head_attention(causal):
    q_in = tw.Input(batch_shape=(None, None, 4), name="q")
    k_in = tw.Input(batch_shape=(None, None, 6), name="k")
    v_in = tw.Input(batch_shape=(None, None, 5), name="v")
    att = MHAttention(q_in, k_in, v_in, n_units=6, n_heads=3, causal=causal)
    q, k, v = _seq(2, 5, 4), _seq(2, 5, 6), _seq(2, 5, 5)
    ref = _keras_twin(att, q, k, v)
    got = tw.compile(att)(q, k, v).numpy()
    want = ref(q, v, key=k, use_causal_mask=causal).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("causal", [False, True])
def test_key_mask_matches_keras_attention_mask(causal):
    x = tw.Input(batch_shape=(None, None, 4), name="x")
    mask_in = tw.Input(batch_shape=(None, None), dtype="bool", name="mask")
    att = MHAttention(x, x, x, mask_in, n_units=4, n_heads=2, causal=causal)
    value = _seq(2, 5, 4)
    mask = np.array([[1, 1, 1, 0, 0], [1, 0, 1, 1, 1]], bool)
    ref = _keras_twin(att, value, value, value)
    got = tw.compile(att)(value, mask).numpy()
    want = ref(
        value,
        value,
        key=value,
        attention_mask=np.repeat(mask[:, None], 5, axis=1),
        use_causal_mask=causal,
    ).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    padded = value.copy()
    padded[0, 3:] = 50.0  # masked key/value steps of sample 0 do not matter to its queries
    again = tw.compile(att)(padded, mask).numpy()
    np.testing.assert_allclose(again[0, :3], got[0, :3], rtol=1e-5, atol=1e-6)


def test_matches_numpy_single_head_no_bias():
    x = tw.Input(shape=(3, 2))
    att = MHAttention(x, n_units=2, n_heads=1, add_bias=False)
    value = _seq(1, 3, 2)
    wq, wk, wv = (getattr(att, f"{r}_kernel").numpy()[:, 0] for r in ("query", "key", "value"))
    wo = att.output_kernel.numpy()[0]
    q, k, v = value[0] @ wq, value[0] @ wk, value[0] @ wv
    scores = q @ k.T / np.sqrt(2)
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    np.testing.assert_allclose(
        att.compute(value, value, value).numpy()[0], weights @ v @ wo, rtol=1e-4, atol=1e-5
    )


def test_causal_mask_blocks_the_future():
    x = tw.Input(batch_shape=(None, None, 4))
    att = MHAttention(x, n_units=4, n_heads=2, causal=True)
    value = _seq(2, 6, 4)
    weights = att.attention_weights(value, value).numpy()
    assert np.all(np.triu(np.ones((6, 6)), k=1)[None, None] * weights == 0)
    np.testing.assert_allclose(weights.sum(-1), 1.0, rtol=1e-5)
    changed = value.copy()
    changed[:, 4:] = 100.0  # rewrite the future of step 3
    a = att.compute(value, value, value).numpy()
    b = att.compute(changed, changed, changed).numpy()
    np.testing.assert_allclose(a[:, :4], b[:, :4], rtol=1e-5, atol=1e-6)
    assert not np.allclose(a[:, 4:], b[:, 4:])
    open_att = att.reuse_with(x)  # sanity: without the mask the future leaks
    unmasked = MHAttention(x, n_units=4, n_heads=2, share_state_with=open_att)
    assert not np.allclose(
        unmasked.compute(value, value, value).numpy()[:, :4],
        unmasked.compute(changed, changed, changed).numpy()[:, :4],
    )


def test_attention_dropout_only_in_training():
    x = tw.Input(batch_shape=(None, None, 4))
    att = MHAttention(x, n_units=4, n_heads=2, dropout=0.5)
    infer = att.reuse_with(x, training=False)
    plain = MHAttention(x, n_units=4, n_heads=2, share_state_with=att)
    value = _seq(2, 5, 4)
    np.testing.assert_allclose(
        infer.compute(value, value, value).numpy(),
        plain.compute(value, value, value).numpy(),
        rtol=1e-6,
    )
    assert not np.allclose(
        att.compute(value, value, value).numpy(), plain.compute(value, value, value).numpy()
    )


def test_reuse_forms_share_weights():
    x = tw.Input(batch_shape=(None, None, 4))
    att = MHAttention(x, n_units=4, n_heads=2)
    y = tw.Input(shape=(7, 4))
    cross = att.reuse_with(x, y)
    assert cross.inputs == (x, y, y) and cross.shares_state_with(att)
    assert cross.shape == (None, None, 4)


def test_errors():
    x = tw.Input(batch_shape=(None, None, 4), name="x")
    with pytest.raises(tw.ShapeError, match=r"MHAttention: query .*\(None, 4\)"):
        MHAttention(tw.Input(n_units=4))
    with pytest.raises(ValueError, match="not divisible by n_heads=3"):
        MHAttention(x, n_units=4, n_heads=3)
    with pytest.raises(tw.ShapeError, match="same number of steps"):
        MHAttention(x, tw.Input(shape=(3, 4)), tw.Input(shape=(5, 4)))
    k3 = tw.Input(shape=(3, 4))
    with pytest.raises(tw.ShapeError, match=r"key_mask .* same number of steps"):
        MHAttention(x, k3, k3, tw.Input(shape=(4,), dtype="bool"))
    with pytest.raises(tw.ShapeError, match=r"key_mask must be dense \[batch, t_k\]"):
        MHAttention(x, key_mask=tw.Input(shape=(3, 1), dtype="bool"))
    att = MHAttention(x, n_units=4, n_heads=2)
    with pytest.raises(tw.ShapeError, match="widths"):
        att.reuse_with(tw.Input(batch_shape=(None, None, 8)))


def test_reuse_switches_causal_and_dropout_per_use_with_shared_weights():
    x = tw.Input(batch_shape=(None, None, 4))
    encoder = MHAttention(x, n_units=4, n_heads=2)  # sees every step
    decoder = encoder.reuse_with(x, causal=True)  # the same weights, masked future
    assert decoder.causal and not encoder.causal and decoder.shares_state_with(encoder)
    value = _seq(2, 5, 4)
    changed = value.copy()
    changed[:, 3:] = 50.0
    dec = [decoder.compute(v, v, v).numpy()[:, :3] for v in (value, changed)]
    enc = [encoder.compute(v, v, v).numpy()[:, :3] for v in (value, changed)]
    np.testing.assert_allclose(dec[0], dec[1], rtol=1e-5, atol=1e-6)  # the future is hidden
    assert not np.allclose(enc[0], enc[1])
    assert decoder.reuse_with(x).causal  # kept unless given
    assert encoder.reuse_with(x, dropout=0.25).dropout == 0.25
