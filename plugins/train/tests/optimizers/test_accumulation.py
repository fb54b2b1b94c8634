"""Gradient accumulation (``accumulate_steps=``): Keras's ``gradient_accumulation_steps``
rule, sparse gradients accumulated, and N small batches equal to one N times larger."""

from __future__ import annotations

import keras
import numpy as np
import tensorflow as tf
from twtrain_helpers import regression_data, regression_model, weights

import tensorweave_train as twt


def test_accumulation_matches_keras_gradient_accumulation_steps() -> None:
    rng = np.random.default_rng(0)
    init = rng.normal(size=(3, 2)).astype("float32")
    mine, ref = tf.Variable(init), keras.Variable(init)
    ours = twt.Adam(0.05, accumulate_steps=3, clip_global_norm=1.0)
    theirs = keras.optimizers.Adam(0.05, gradient_accumulation_steps=3, global_clipnorm=1.0)
    for _ in range(7):
        g = tf.constant(rng.normal(size=(3, 2)).astype("float32"))
        ours.apply_gradients([(g, mine)])
        theirs.apply_gradients([(g, ref)])
        np.testing.assert_allclose(mine.numpy(), np.asarray(ref), rtol=1e-5, atol=1e-6)
    assert (int(ours.iterations), int(ours.updates)) == (7, int(theirs.iterations)) == (7, 2)


def test_sparse_gradients_accumulate_into_the_dense_mean() -> None:
    init = np.ones((4, 2), "float32")
    sparse_v, dense_v = tf.Variable(init), tf.Variable(init)
    opt_s, opt_d = twt.Adagrad(0.1, accumulate_steps=2), twt.Adagrad(0.1, accumulate_steps=2)
    for rows in ([0, 0], [3, 0]):
        g = tf.IndexedSlices(tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant(rows), [4, 2])
        opt_s.apply_gradients([(g, sparse_v)])
        opt_d.apply_gradients([(tf.convert_to_tensor(g), dense_v)])
    np.testing.assert_allclose(sparse_v.numpy(), dense_v.numpy(), rtol=1e-6)
    assert not np.allclose(sparse_v.numpy(), init)
    np.testing.assert_array_equal(opt_s.slot(sparse_v, "accumulator").numpy(), 0.0)


def test_two_batches_accumulated_are_one_batch_twice_as_large() -> None:
    data = regression_data(n=32)
    small = regression_model(seed=2, optimizer=twt.SGD(0.1, accumulate_steps=2))
    large = regression_model(seed=2, optimizer=twt.SGD(0.1))
    small.train(data, epochs=2, batch_size=8, shuffle=False, verbose=0)
    large.train(data, epochs=2, batch_size=16, shuffle=False, verbose=0)
    for a, b in zip(weights(small), weights(large), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert int(small.optimizer.updates) == int(large.optimizer.iterations) == 4
