"""Bidirectional: per-use options on shared weights, and the sequence's padding mask."""

from __future__ import annotations

import numpy as np
import tensorflow as tf

import tensorweave as tw
from tensorweave_rnn import Bidirectional

RNG = np.random.default_rng(5)


def test_reuse_takes_return_sequences_and_time_major_like_rnn():
    seq = tw.Input(batch_shape=(None, None, 3), name="seq")
    last = tw.layers["Bidirectional.v1"](seq, cell="GRUCell.v1", n_units=3, return_sequences=False)
    every = last.reuse_with(seq, return_sequences=True)
    assert last.shape == (None, 6) and every.shape == (None, None, 6)
    assert every.forward.shares_state_with(last.forward)
    value = RNG.standard_normal((2, 4, 3)).astype("float32")
    steps = tw.compile(every)(value).numpy()
    final = tw.compile(last)(value).numpy()
    np.testing.assert_allclose(steps[:, -1, :3], final[:, :3], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(steps[:, 0, 3:], final[:, 3:], rtol=1e-5, atol=1e-6)
    shared = Bidirectional(seq, return_sequences=True, share_state_with=last)
    assert shared.shape == (None, None, 6)
    time_major = every.reuse_with(seq, time_major=True)
    flipped = tw.compile(time_major)(value.transpose(1, 0, 2)).numpy()
    np.testing.assert_allclose(flipped.transpose(1, 0, 2), steps, rtol=1e-5, atol=1e-6)


def test_the_padding_mask_of_the_sequence_is_the_mask():
    ids = tw.Input(batch_shape=(None, None), dtype=tf.int64, name="ids")
    emb = tw.layers["Lookup.v1"](ids, vocab_size=5, n_units=3, mask_zero=True)
    bi = tw.layers["Bidirectional.v1"](emb, cell="LSTMCell.v1", n_units=2, return_sequences=True)
    assert bi.inputs == (emb, emb.padding_mask) and bi.padding_mask is emb.padding_mask
    explicit = tw.layers["Bidirectional.v1"](
        emb,
        cell="LSTMCell.v1",
        n_units=2,
        mask=emb.padding_mask,
        share_state_with=bi,
        return_sequences=True,
    )
    ids_value = np.array([[1, 2, 0, 0], [3, 1, 4, 0]], "int64")
    np.testing.assert_allclose(
        tw.compile(bi)(ids_value).numpy(), tw.compile(explicit)(ids_value).numpy(), rtol=1e-6
    )
    out = tw.compile(bi)(ids_value).numpy()
    assert np.all(out[0, 2:] == 0) and np.all(out[1, 3:] == 0)  # padded steps are zeros
    plain = bi.reuse_with(tw.Input(batch_shape=(None, None, 3), name="plain"))
    assert len(plain.inputs) == 1 and plain.padding_mask is None
