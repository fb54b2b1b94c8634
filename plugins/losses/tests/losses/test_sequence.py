"""Sequence cross-entropy and perplexity against numpy."""

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorweave as tw
from tensorweave_losses import LossValueError
from tensorweave_losses.losses.sequence import sequence_cross_entropy
from tensorweave_losses.metrics.perplexity import perplexity


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


def test_on_layers_the_padding_mask_of_the_logits_is_the_mask():
    ids = tw.Input(batch_shape=(None, None), dtype=tf.int64, name="ids")
    logits = tw.layers["Lookup.v1"](ids, vocab_size=5, n_units=5, mask_zero=True)
    targets = tw.Input(batch_shape=(None, None), dtype=tf.int64, name="targets")
    loss = tw.losses["sequence_cross_entropy.v1"](targets, logits)
    ppl = tw.metrics["perplexity.v1"](targets, logits)
    assert loss.inputs[-1] is logits.padding_mask and ppl.inputs[-1] is logits.padding_mask
    ids_value = np.array([[1, 2, 0], [3, 0, 0]], "int64")
    target_value = np.array([[2, 3, 4], [1, 4, 4]], "int64")
    token = np_token_losses(target_value, logits.embeddings.numpy()[ids_value])
    want = token[ids_value != 0].mean()  # real tokens only
    got = tw.compile(tw.Graph.build([ids, targets], [loss, ppl]))(ids_value, target_value)
    np.testing.assert_allclose(got[0].numpy(), want, rtol=1e-5)
    np.testing.assert_allclose(got[1].numpy(), np.exp(want), rtol=1e-5)
    every = tw.losses["sequence_cross_entropy.v1"](
        targets, logits, lengths=tw.Input(shape=(), dtype=tf.int32)
    )
    assert logits.padding_mask not in every.inputs  # lengths= (or mask=) wins
