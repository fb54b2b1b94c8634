"""Keras's defaults where we use Keras's names (#34), for the recurrent layers: built with no
options (only those Keras requires), ``RNN.v1`` (with an LSTM or a GRU cell),
``Bidirectional.v1``/``ConvLSTM2D.v1`` compute
what Keras's layer built with no options computes (the last step's output, not every step's);
every other default of a component with a Keras counterpart is Keras's, or listed in the
counterparts table as a deliberate difference."""

from __future__ import annotations

import inspect

import keras
import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave.registries.counterparts import counterparts

K = keras.layers
NAMES = {
    "n_units": ("units", "filters"),
    "w_init": ("kernel_initializer",),
    "u_init": ("recurrent_initializer",),
    "b_init": ("bias_initializer",),
    "add_bias": ("use_bias",),
}
#: ``None`` options that stand for the pack's own defaults (see ``tensorweave_rnn.cells``)
RESOLVED = {"w_init", "u_init", "b_init"}


def _rows():
    for dist, row in counterparts():
        if dist != "tensorweave-rnn" or not row.component:
            continue
        for name in row.known_names:
            if name.startswith("keras.layers.") and hasattr(K, name.rpartition(".")[2]):
                yield row, getattr(K, name.rpartition(".")[2])


ROWS = list(_rows())


@pytest.mark.parametrize(
    ("row", "keras_class"), ROWS, ids=[f"{r.component}-{k.__name__}" for r, k in ROWS]
)
def test_every_default_is_keras_s_or_a_declared_difference(row, keras_class):
    ours = tw.registry(row.kind)[row.component]
    target = ours.__init__ if inspect.isclass(ours) else ours
    theirs = inspect.signature(keras_class.__init__).parameters
    declared = {name.strip() for diff in row.differs for name in diff.option.split(",")}
    undeclared = []
    for option, param in inspect.signature(target).parameters.items():
        if param.default is inspect.Parameter.empty or option in declared | {"name", "training"}:
            continue
        if option in RESOLVED and param.default is None:
            continue
        keras_name = next((n for n in (option, *NAMES.get(option, ())) if n in theirs), None)
        if keras_name is None or theirs[keras_name].default is inspect.Parameter.empty:
            continue
        want = theirs[keras_name].default
        got = param.default.rpartition(":")[2] if isinstance(param.default, str) else param.default
        if got != want:
            undeclared.append(f"{option}={param.default!r} (Keras {want!r})")
    assert not undeclared, f"{row.component} vs keras.layers.{keras_class.__name__}: {undeclared}"


def _compare(ours: tw.Layer, ref: keras.layers.Layer, value: np.ndarray) -> None:
    """Keras's weights copied into ours (same layout), then the same outputs and weight
    gradients."""
    mine = {v.name.rpartition("/")[2].split(":")[0]: v for v in ours.trainable_variables}
    for weight in ref.trainable_weights:
        mine[weight.name].assign(weight.numpy())
    graph = tw.Graph.build(list(ours.graph.inputs), ours)
    x = tf.constant(value)
    with tf.GradientTape(persistent=True) as tape:
        got, want = graph.compute(x), ref(x)
        cotangent = tf.constant(np.random.default_rng(1).standard_normal(got.shape), got.dtype)
        got_loss, want_loss = tf.reduce_sum(got * cotangent), tf.reduce_sum(want * cotangent)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)
    for weight in ref.trainable_weights:
        np.testing.assert_allclose(
            tape.gradient(got_loss, mine[weight.name]).numpy(),
            tape.gradient(want_loss, weight).numpy(),
            rtol=1e-4,
            atol=1e-5,
            err_msg=f"gradient of {weight.name}",
        )


def test_rnn_with_no_options_is_keras_lstm_with_no_options():
    ours = tw.layers["RNN.v1"](tw.Input(shape=(5, 2)), cell="LSTMCell.v1", n_units=3)
    ref = K.LSTM(3)
    ref.build((None, 5, 2))
    for weight in ref.trainable_weights:
        weight.assign(np.random.default_rng(3).standard_normal(weight.shape) * 0.5)
    assert ours.shape == (None, 3)
    _compare(ours, ref, np.random.default_rng(0).standard_normal((2, 5, 2)).astype("float32"))


@pytest.mark.parametrize("keras_init", [False, True], ids=["random-weights", "keras-init"])
def test_rnn_gru_with_no_options_is_keras_gru_with_no_options(keras_init):
    """Keras's GRU with no options is ``reset_after=True``: a bias ``(2, 3 * units)``, the
    input's row added before the reset gate, the recurrent row inside it
    (``r * (h @ U + b_rec)``); ours has the same layout and the same placement, so Keras's
    weights copy over as they are and outputs and every gradient (both bias rows) agree."""
    ours = tw.layers["RNN.v1"](tw.Input(shape=(5, 2)), cell="GRUCell.v1", n_units=3)
    ref = K.GRU(3)
    ref.build((None, 5, 2))
    assert [tuple(w.shape) for w in ref.trainable_weights] == [(2, 9), (3, 9), (2, 9)]
    if not keras_init:  # two different bias rows, so a swapped or merged row shows
        for i, weight in enumerate(ref.trainable_weights):
            weight.assign(np.random.default_rng(3 + i).standard_normal(weight.shape) * 0.5)
    assert ours.shape == (None, 3)
    _compare(ours, ref, np.random.default_rng(0).standard_normal((2, 5, 2)).astype("float32"))


def test_conv_lstm2d_with_no_options_is_keras_s_with_no_options():
    ours = tw.layers["ConvLSTM2D.v1"](tw.Input(shape=(3, 5, 5, 1)), n_units=2, kernel_size=3)
    ref = K.ConvLSTM2D(2, 3)
    ref.build((None, 3, 5, 5, 1))
    for weight in ref.trainable_weights:
        weight.assign(np.random.default_rng(3).standard_normal(weight.shape) * 0.5)
    assert ours.shape == (None, 3, 3, 2)
    value = np.random.default_rng(0).standard_normal((2, 3, 5, 5, 1)).astype("float32")
    _compare(ours, ref, value)


def test_bidirectional_returns_the_last_step_as_keras():
    seq = tw.Input(batch_shape=(None, None, 3))
    assert tw.layers["Bidirectional.v1"](seq, cell="GRUCell.v1", n_units=4).shape == (None, 8)
    assert K.Bidirectional(K.GRU(4)).compute_output_shape((None, 7, 3)) == (None, 8)
