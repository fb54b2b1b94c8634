"""Models built from the core only (no other pack), shared by the tests and subprocesses."""

from __future__ import annotations

import numpy as np
import tensorflow as tf

import tensorweave as tw
import tensorweave_train as twt


class Dense(tw.Layer):
    """``x @ w + b``: a tiny layer with variables, defined here to stay independent of packs."""

    def __init__(self, x, n_units, *, name=None, share_state_with=None):
        self.n_in = x.n_units
        self.units = n_units
        super().__init__(
            x, shape=(*x.shape[:-1], n_units), name=name, share_state_with=share_state_with
        )

    def init_state(self):
        self.state.w = tf.Variable(tf.random.normal([self.n_in, self.units], stddev=0.5), name="w")
        self.state.b = tf.Variable(tf.zeros([self.units]), name="b")

    def compute(self, x):
        return x @ self.state.w + self.state.b


class Embed(tw.Layer):
    """Mean of embedding rows of int ids: its gradient is ``tf.IndexedSlices``."""

    def __init__(self, ids, vocab, dim, *, name=None, share_state_with=None):
        self.vocab, self.dim = vocab, dim
        super().__init__(ids, shape=(None, dim), name=name, share_state_with=share_state_with)

    def init_state(self):
        self.state.table = tf.Variable(tf.random.normal([self.vocab, self.dim]), name="table")

    def compute(self, ids):
        return tf.reduce_mean(tf.gather(self.state.table, ids), axis=1)


def mse(y, t):
    return tf.reduce_mean(tf.square(y - t))


def regression_model(seed=0, optimizer=None, dropout=0.0, **kw):
    """x(4) -> Dense(8) -> tanh [-> Dropout] -> Dense(1); loss mse, metric mae."""
    tw.reset_names()
    tf.random.set_seed(seed)
    x = tw.Input(n_units=4, name="x")
    t = tw.Input(n_units=1, name="t")
    h = tw.Lambda(tf.tanh, Dense(x, 8))
    if dropout:
        h = tw.layers["Dropout.v1"](h, rate=dropout)
    y = Dense(h, 1, name="y")
    loss = tw.Lambda(mse, y, t, name="mse")
    mae = tw.Lambda(lambda a, b: tf.reduce_mean(tf.abs(a - b)), y, t, name="mae")
    return twt.Model(
        inputs=x,
        outputs=y,
        targets=t,
        loss=loss,
        metrics={"mae": mae},
        optimizer=optimizer if optimizer is not None else twt.SGD(0.05),
        **kw,
    )


def regression_data(n=64, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 4)).astype("float32")
    t = (np.sin(x[:, :1]) + 0.5 * x[:, 1:2]).astype("float32")
    return {"x": x, "t": t}


def weights(model):
    return [v.numpy().copy() for v in model.variables]
