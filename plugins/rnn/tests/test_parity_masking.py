"""Masked recurrent layers against Keras 3's masking: ``Lookup(mask_zero=True)`` feeding
``RNN``/``Bidirectional`` gives what ``keras.layers.Embedding(mask_zero=True)`` feeding
``LSTM``/``Bidirectional`` gives (same weights, same outputs and gradients), with no mask
wired by hand."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

VOCAB, WIDTH, UNITS = 6, 3, 4
IDS = np.array([[3, 1, 4, 0, 0], [2, 5, 5, 1, 0], [1, 0, 0, 0, 0]], "int64")


WEIGHTS = ("kernel", "recurrent_kernel", "bias")


def _copy(cell, keras_cell):
    for name in WEIGHTS:
        getattr(cell, name).assign(getattr(keras_cell, name))


def _weights(cell):
    return [getattr(cell, name) for name in WEIGHTS]


def _run(fn, variables):
    with tf.GradientTape() as tape:
        out = fn()
        loss = tf.reduce_sum(tf.sin(2.0 * out))
    grads = tape.gradient(loss, variables)
    return out.numpy(), [tf.convert_to_tensor(g).numpy() for g in grads]


@pytest.mark.parametrize("return_sequences", [True, False])
def test_masked_lstm_matches_keras(return_sequences):
    embedding = keras.layers.Embedding(VOCAB, WIDTH, mask_zero=True)
    lstm = keras.layers.LSTM(  # padded steps give zeros, as RNN.v1 (and Keras's Bidirectional)
        UNITS, return_sequences=return_sequences, zero_output_for_mask=return_sequences
    )
    lstm(embedding(IDS))
    ids = tw.Input(batch_shape=(None, None), dtype=tf.int64, name="ids")
    emb = tw.layers["Lookup.v1"](ids, vocab_size=VOCAB, n_units=WIDTH, mask_zero=True)
    rnn = tw.layers["RNN.v1"](
        emb, cell="LSTMCell.v1", n_units=UNITS, return_sequences=return_sequences
    )
    emb.embeddings.assign(embedding.embeddings)
    _copy(rnn.cell, lstm.cell)
    run = tw.compile(rnn)
    got = _run(lambda: run(IDS), [emb.embeddings, *_weights(rnn.cell)])
    want = _run(lambda: lstm(embedding(IDS)), [embedding.embeddings, *_weights(lstm.cell)])
    for a, b in zip([got[0], *got[1]], [want[0], *want[1]], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_masked_bidirectional_matches_keras():
    embedding = keras.layers.Embedding(VOCAB, WIDTH, mask_zero=True)
    ref = keras.layers.Bidirectional(keras.layers.GRU(UNITS, return_sequences=True))
    ref(embedding(IDS))
    ids = tw.Input(batch_shape=(None, None), dtype=tf.int64, name="ids")
    emb = tw.layers["Lookup.v1"](ids, vocab_size=VOCAB, n_units=WIDTH, mask_zero=True)
    bi = tw.layers["Bidirectional.v1"](emb, cell="GRUCell.v1", n_units=UNITS, return_sequences=True)
    emb.embeddings.assign(embedding.embeddings)
    _copy(bi.forward.cell, ref.forward_layer.cell)
    _copy(bi.backward.cell, ref.backward_layer.cell)
    run = tw.compile(bi)
    ours = [emb.embeddings, *_weights(bi.forward.cell), *_weights(bi.backward.cell)]
    theirs = [
        embedding.embeddings,
        *_weights(ref.forward_layer.cell),
        *_weights(ref.backward_layer.cell),
    ]
    got, want = _run(lambda: run(IDS), ours), _run(lambda: ref(embedding(IDS)), theirs)
    for a, b in zip([got[0], *got[1]], [want[0], *want[1]], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
