"""Sequence cross-entropy and perplexity against numpy."""

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorweave as tw
from tensorweave_losses import LossValueError
from tensorweave_losses.sequence import perplexity, sequence_cross_entropy


def np_token_losses(ids, logits):
    z = logits.astype("float64")
    z = z - z.max(-1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(-1, keepdims=True))
    return -np.take_along_axis(logp, ids[..., None], -1)[..., 0]


def _data(batch, time, vocab, seed):
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, vocab, size=(batch, time))
    logits = (rng.standard_normal((batch, time, vocab)) * 2).astype("float32")
    lengths = rng.integers(0, time + 1, size=batch)
    return rng, ids, logits, lengths


@settings(max_examples=15)
@given(st.integers(1, 4), st.integers(1, 5), st.integers(2, 6), st.integers(0, 2**31 - 1))
def test_masked_mean_sum_none_against_numpy(batch, time, vocab, seed):
    rng, ids, logits, lengths = _data(batch, time, vocab, seed)
    mask = (np.arange(time)[None, :] < lengths[:, None]).astype("float32")
    weights = rng.random(batch).astype("float32")
    token = np_token_losses(ids, logits) * mask * weights[:, None]
    total_weight = (mask * weights[:, None]).sum()
    want_mean = token.sum() / total_weight if total_weight else 0.0
    got = sequence_cross_entropy(ids, logits, lengths=lengths, sample_weight=weights)
    np.testing.assert_allclose(got, want_mean, rtol=1e-4, atol=1e-6)
    got_mask = sequence_cross_entropy(ids, logits, mask=mask, sample_weight=weights)
    np.testing.assert_allclose(got_mask, want_mean, rtol=1e-4, atol=1e-6)
    none = sequence_cross_entropy(ids, logits, mask=mask, sample_weight=weights, reduction="none")
    np.testing.assert_allclose(none, token, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(
        sequence_cross_entropy(
            ids, logits, lengths=lengths, sample_weight=weights, reduction="sum"
        ),
        token.sum(),
        rtol=1e-4,
        atol=1e-5,
    )
    plain = np_token_losses(ids, logits) * mask
    want_ppl = np.exp(plain.sum() / mask.sum()) if mask.sum() else 1.0
    np.testing.assert_allclose(perplexity(ids, logits, lengths=lengths), want_ppl, rtol=1e-4)


def test_all_padding_gives_zero_loss_and_unit_perplexity():
    _, ids, logits, _ = _data(2, 3, 4, 0)
    assert float(sequence_cross_entropy(ids, logits, lengths=[0, 0])) == 0.0
    assert float(perplexity(ids, logits, lengths=[0, 0])) == 1.0


def test_extreme_logits_finite_and_padding_gets_no_gradient():
    logits = tf.Variable([[[1e4, -1e4], [-1e4, 1e4]]])
    with tf.GradientTape() as tape:
        value = sequence_cross_entropy([[1, 0]], logits, lengths=[1])
    grad = tape.gradient(value, logits).numpy()
    np.testing.assert_allclose(value, 2e4, rtol=1e-6)
    assert np.isfinite(grad).all() and (grad[0, 1] == 0).all()


def test_errors():
    _, ids, logits, _ = _data(2, 3, 4, 0)
    with pytest.raises(tw.ShapeError, match=r"\[batch, time, vocab\]"):
        sequence_cross_entropy(ids, logits[:, 0])
    with pytest.raises(tw.ShapeError, match="sequence_cross_entropy"):
        sequence_cross_entropy(ids[:, :2], logits)
    with pytest.raises(LossValueError, match=r"\[0, 4\)"):
        sequence_cross_entropy(ids + 4, logits)
    with pytest.raises(ValueError, match="not both"):
        sequence_cross_entropy(ids, logits, mask=np.ones((2, 3)), lengths=[1, 1])


def test_as_layer_with_lengths_input():
    ids = tw.Input(batch_shape=(None, None), dtype="int64", name="ids")
    logits = tw.Input(batch_shape=(None, None, 4), name="logits")
    lengths = tw.Input(shape=(), dtype="int32", name="lengths")
    node = sequence_cross_entropy(ids, logits, lengths=lengths)
    _, y, z, n = _data(2, 3, 4, 1)
    n = n.astype("int32")
    want = sequence_cross_entropy(y, z, lengths=n)
    np.testing.assert_allclose(tw.compile(node)(y, z, n), want, rtol=1e-6)
    np.testing.assert_allclose(
        perplexity(ids, logits, lengths=lengths)(y, z, n), np.exp(want), rtol=1e-5
    )
