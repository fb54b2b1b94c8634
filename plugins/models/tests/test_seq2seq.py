"""Seq2Seq: a Keras encoder-decoder with the same layers has its parameters (Luong and
Bahdanau attention, LSTM and GRU), padding is left out, greedy decoding."""

from __future__ import annotations

import keras
import numpy as np
import pytest
from twmodels_helpers import count, predict

import tensorweave as tw
from tensorweave_models.seq2seq import greedy_decode

VOCAB = {"source_vocab_size": 15, "target_vocab_size": 11}


def keras_seq2seq(attention, rnn, units=8):
    """An attentional encoder-decoder from Keras layers (the Keras NMT-with-attention
    layout: decoder outputs attend over encoder outputs)."""
    L = keras.layers
    src, tgt = keras.Input((None,), dtype="int64"), keras.Input((None,), dtype="int64")
    enc_in = L.Embedding(15, units, mask_zero=True)(src)
    enc, *states = rnn(units, return_sequences=True, return_state=True)(enc_in)
    dec_in = L.Embedding(11, units, mask_zero=True)(tgt)
    dec = rnn(units, return_sequences=True)(dec_in, initial_state=states)
    context = attention()([dec, enc])
    h = L.Dense(units, activation="tanh")(L.Concatenate()([context, dec]))
    return keras.Model([src, tgt], L.Dense(11)(h))


@pytest.mark.parametrize(
    ("attention", "cell", "keras_attention", "keras_rnn"),
    [
        ("luong", "LSTMCell.v1", keras.layers.Attention, keras.layers.LSTM),
        ("bahdanau", "GRUCell.v1", keras.layers.AdditiveAttention, keras.layers.GRU),
    ],
)
def test_the_parameters_are_the_keras_encoder_decoders(attention, cell, keras_attention, keras_rnn):
    ours = tw.models["Seq2Seq.v1"](
        (None,), (None,), **VOCAB, n_units=8, attention=attention, cell=cell
    )
    want = keras_seq2seq(keras_attention, keras_rnn)
    assert count(ours) == want.count_params()
    assert ours.shape == (None, None, 11)


def test_padding_after_the_source_changes_nothing():
    net = tw.models["Seq2Seq.v1"]((None,), (None,), **VOCAB, n_units=8)
    src = np.array([[3, 4, 5]], "int64")
    padded = np.array([[3, 4, 5, 0, 0]], "int64")
    tgt = np.array([[1, 2, 6]], "int64")
    np.testing.assert_allclose(
        predict(net, src, tgt), predict(net, padded, tgt), rtol=1e-5, atol=1e-6
    )


def test_greedy_decoding_feeds_back_the_most_likely_token():
    net = tw.models["Seq2Seq.v1"]((None,), (None,), **VOCAB, n_units=8)
    src = np.array([[3, 4, 5], [6, 7, 0]], "int64")
    out = greedy_decode(net, src, start_id=1, max_length=4)
    assert out.shape == (2, 4)
    # each token is the argmax of the logits given the tokens before it
    tgt = np.concatenate([np.ones((2, 1), "int64"), out[:, :-1]], axis=1)
    np.testing.assert_array_equal(predict(net, src, tgt).argmax(-1), out)


def test_greedy_decoding_pads_after_the_end_token():
    net = tw.models["Seq2Seq.v1"]((None,), (None,), **VOCAB, n_units=8)
    src = np.array([[3, 4, 5]], "int64")
    first = int(greedy_decode(net, src, start_id=1, max_length=1)[0, 0])
    out = greedy_decode(net, src, start_id=1, max_length=3, end_id=first)
    assert out[0].tolist() == [first, 0, 0]


def test_an_unknown_attention_is_refused_with_the_choices():
    with pytest.raises(tw.ArgumentError, match=r"attention must be one of \['bahdanau', 'luong'\]"):
        tw.models["Seq2Seq.v1"]((None,), (None,), **VOCAB, attention="general")
