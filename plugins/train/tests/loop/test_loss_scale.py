"""LossScale: the update of the unscaled gradients, skipped steps and a changing factor."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
import tensorweave_train as twt


def _step(scale, w, loss_fn, optimizer):
    with tf.GradientTape() as tape:
        loss = loss_fn(w)
    scale.apply(tape, loss, [w], optimizer)


def test_the_update_is_the_one_of_the_unscaled_gradient():
    scaled, plain = tf.Variable([1.0, -2.0]), tf.Variable([1.0, -2.0])
    scale = twt.LossScale(initial=1024.0)
    _step(scale, scaled, lambda w: tf.reduce_sum(w**2), twt.Adam(0.1))
    twt.Adam(0.1).minimize(lambda: tf.reduce_sum(plain**2), [plain])
    np.testing.assert_allclose(scaled.numpy(), plain.numpy(), rtol=1e-6)
    assert float(scale.scale) == 1024.0 and int(scale.good_steps) == 1


def test_a_step_with_a_non_finite_gradient_is_skipped_and_halves_the_factor():
    w = tf.Variable([1.0])
    optimizer = twt.SGD(0.1)
    scale = twt.LossScale(initial=64.0)
    _step(scale, w, lambda v: tf.reduce_sum(v * np.float32(np.inf)), optimizer)
    assert w.numpy().tolist() == [1.0] and int(optimizer.iterations) == 0
    assert float(scale.scale) == 32.0 and int(scale.good_steps) == 0


def test_the_factor_doubles_after_growth_interval_finite_steps():
    w = tf.Variable([1.0])
    scale = twt.LossScale(initial=4.0, growth_interval=3)
    for _ in range(3):
        _step(scale, w, lambda v: tf.reduce_sum(v), twt.SGD(0.1))
    assert float(scale.scale) == 8.0 and int(scale.good_steps) == 0


def test_sparse_gradients_stay_sparse_and_are_unscaled():
    table = tf.Variable(tf.ones([5, 2]))
    scale = twt.LossScale(initial=256.0)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.gather(table, [1, 3]))
    grads, finite = scale.gradients(tape, loss, [table])
    assert isinstance(grads[0], tf.IndexedSlices) and bool(finite)
    np.testing.assert_allclose(grads[0].values.numpy(), np.ones((2, 2)))


def test_bad_settings_are_refused():
    with pytest.raises(tw.ArgumentError, match="initial must be positive"):
        twt.LossScale(initial=0.0)
