"""The programs of ``bench_precision.py``: each model in float32 and mixed bfloat16, three ways.

For every benchmark model (TensorLayer's CIFAR-10 CNN with its two LRN layers, the same CNN
without them, the PTB small LSTM, word2vec skip-gram NCE):

- tensorweave: ``Model(..., precision=...)`` trained with ``Model.train``, layers by
  registered name;
- hand-written TensorFlow (variables + ``GradientTape`` + ``tf.function``) and its
  **mixed-bfloat16 twin**: the same program with float32 variables, each matmul or
  convolution fed bfloat16 casts of its input and weights, and what tensorweave keeps in
  float32 kept in float32 (the LRN, which has no bfloat16 kernel; the LSTM recurrences;
  the embedding gathers; the loss, on float32 logits). word2vec's twin is its float32
  program: the gather and the NCE loss are all it computes, and both stay float32;
- Keras 3 ``fit``, its layers made under ``keras.config.set_dtype_policy("mixed_bfloat16")``
  for the mixed variant (a float32 ``Activation("linear")`` last, as Keras's guide says; the
  LRN a float32 ``Lambda``).

The CNN's and word2vec's builders are ``bench_models.py``'s (``precision=``, ``bf16=``,
``lrn=``, a Keras ``policy``); the PTB ones are here (``bench_ptb_lstm.py`` times steps of
its own, not ``Model.train``). Every builder returns ``epoch(data, batch)``, one epoch over
``data`` (a tuple of arrays).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import tensorflow as tf
from bench_models import (
    _glorot,
    _hand_loop,
    _low,
    _tw_epoch,
    cnn_hand_written,
    cnn_keras,
    cnn_tensorweave,
    w2v_hand_written,
    w2v_keras,
    w2v_tensorweave,
)

import tensorweave as tw

from common import keras_policy

PTB_VOCAB, PTB_UNITS, PTB_LAYERS, PTB_STEPS, PTB_BATCH, PTB_LR = 10_000, 200, 2, 20, 20, 1.0

Epoch = Callable[[tuple[np.ndarray, ...], int], None]


# -- PTB small LSTM ---------------------------------------------------------------------------
def ptb_data(n: int) -> tuple[np.ndarray, np.ndarray]:
    ids = np.random.default_rng(0).integers(0, PTB_VOCAB, (n, PTB_STEPS + 1)).astype("int32")
    return ids[:, :-1], ids[:, 1:]


def ptb_tensorweave(precision: str) -> Epoch:
    from tensorweave_train import SGD, Model

    L = tw.layers
    tokens = tw.Input(shape=(PTB_STEPS,), dtype="int32", name="tokens")
    targets = tw.Input(shape=(PTB_STEPS,), dtype="int32", name="targets")
    h = L["Lookup.v1"](tokens, PTB_VOCAB, PTB_UNITS)
    for _ in range(PTB_LAYERS):
        h = L["RNN.v1"](h, cell="LSTMCell.v1", n_units=PTB_UNITS, return_sequences=True)
    logits = L["Linear.v1"](h, PTB_VOCAB)
    loss = tw.losses["sparse_categorical_cross_entropy.v1"](targets, logits, from_logits=True)
    model = Model(
        inputs=tokens,
        outputs=logits,
        targets=targets,
        loss=loss,
        optimizer=SGD(PTB_LR),
        precision=precision,
    )
    return _tw_epoch(model, ("tokens", "targets"), "train")


def ptb_hand_written(bf16: bool) -> Epoch:
    """The hand-unrolled program of ``bench_ptb_lstm.py`` (its fastest hand-written form);
    the twin casts the vocabulary projection, the LSTMs stay float32 as tensorweave's."""
    u = PTB_UNITS
    embedding = tf.Variable(tf.random.uniform([PTB_VOCAB, u], -0.1, 0.1))
    cells = [
        (_glorot([u, 4 * u]), _glorot([u, 4 * u]), tf.Variable(tf.zeros([4 * u])))
        for _ in range(PTB_LAYERS)
    ]
    w_out = tf.Variable(tf.random.uniform([u, PTB_VOCAB], -0.1, 0.1))
    b_out = tf.Variable(tf.zeros([PTB_VOCAB]))
    variables = [embedding, *[v for c in cells for v in c], w_out, b_out]

    def lstm(xs: tf.Tensor, kernel: tf.Tensor, recurrent: tf.Tensor, bias: tf.Tensor) -> Any:
        zx = tf.reshape(
            tf.nn.bias_add(tf.reshape(xs, [-1, u]) @ kernel, bias), [PTB_STEPS, -1, 4 * u]
        )
        h = c = tf.zeros([tf.shape(xs)[1], u])
        outputs = []
        for z_in in tf.unstack(zx, num=PTB_STEPS):
            i, f, g, o = tf.split(z_in + h @ recurrent, 4, axis=1)
            c = tf.sigmoid(f) * c + tf.sigmoid(i) * tf.tanh(g)
            h = tf.sigmoid(o) * tf.tanh(c)
            outputs.append(h)
        return tf.stack(outputs)

    @tf.function(input_signature=[tf.TensorSpec([None, PTB_STEPS], tf.int32)] * 2)
    def step(x: tf.Tensor, y: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            h = tf.transpose(tf.gather(embedding, x), [1, 0, 2])
            for kernel, recurrent, bias in cells:
                h = lstm(h, kernel, recurrent, bias)
            h = tf.reshape(tf.transpose(h, [1, 0, 2]), [-1, u])
            logits = tf.cast(_low(h, bf16) @ _low(w_out, bf16) + _low(b_out, bf16), tf.float32)
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(tf.reshape(y, [-1]), logits)
            )
        for v, g in zip(variables, tape.gradient(loss, variables), strict=True):
            if isinstance(g, tf.IndexedSlices):
                v.scatter_sub(tf.IndexedSlices(PTB_LR * g.values, g.indices, g.dense_shape))
            else:
                v.assign_sub(PTB_LR * g)
        return loss

    return _hand_loop(step)


def ptb_keras(policy: str) -> Epoch:
    import keras

    with keras_policy(policy):
        model = keras.Sequential(
            [
                keras.Input((PTB_STEPS,), dtype="int32"),
                keras.layers.Embedding(PTB_VOCAB, PTB_UNITS),
                *[keras.layers.LSTM(PTB_UNITS, return_sequences=True) for _ in range(PTB_LAYERS)],
                keras.layers.Dense(PTB_VOCAB),
                keras.layers.Activation("linear", dtype="float32"),
            ]
        )
    model.compile(
        keras.optimizers.SGD(PTB_LR),
        keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    )

    def epoch(data: tuple[np.ndarray, ...], batch: int) -> None:
        model.fit(data[0], data[1], batch_size=batch, epochs=1, verbose=0, shuffle=False)

    return epoch


# -- word2vec ---------------------------------------------------------------------------------
def w2v_keras_policy(policy: str) -> Epoch:
    with keras_policy(policy):
        return w2v_keras()  # its NCE layer reads its float32 weights; the embedding bf16


# -- the variants of each model -----------------------------------------------------------------
TW32, HAND32, KERAS32 = "tw float32", "hand-written float32", "keras fit float32"
TW16, HAND16, KERAS16 = (
    "tw mixed_bfloat16",
    "hand-written bfloat16 twin",
    "keras fit mixed_bfloat16",
)
KERAS = (KERAS32, KERAS16)


def variants(model: str) -> dict[str, Callable[[], Epoch]]:
    """The six programs of ``model`` (``cnn``, ``cnn_lrn``, ``ptb``, ``word2vec``)."""
    if model in ("cnn", "cnn_lrn"):
        lrn = model == "cnn_lrn"
        return {
            TW32: lambda: cnn_tensorweave(lrn=lrn),
            HAND32: lambda: cnn_hand_written(lrn=lrn),
            KERAS32: lambda: cnn_keras(lrn=lrn),
            TW16: lambda: cnn_tensorweave(precision="mixed_bfloat16", lrn=lrn),
            HAND16: lambda: cnn_hand_written(bf16=True, lrn=lrn),
            KERAS16: lambda: cnn_keras("mixed_bfloat16", lrn=lrn),
        }
    if model == "ptb":
        return {
            TW32: lambda: ptb_tensorweave("float32"),
            HAND32: lambda: ptb_hand_written(False),
            KERAS32: lambda: ptb_keras("float32"),
            TW16: lambda: ptb_tensorweave("mixed_bfloat16"),
            HAND16: lambda: ptb_hand_written(True),
            KERAS16: lambda: ptb_keras("mixed_bfloat16"),
        }
    return {
        TW32: w2v_tensorweave,
        HAND32: w2v_hand_written,
        KERAS32: lambda: w2v_keras_policy("float32"),
        TW16: lambda: w2v_tensorweave(precision="mixed_bfloat16"),
        HAND16: w2v_hand_written,  # nothing of word2vec computes in bfloat16 (see above)
        KERAS16: lambda: w2v_keras_policy("mixed_bfloat16"),
    }
