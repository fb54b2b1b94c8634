"""Lambda: a function of tensors as a layer, its output found by tracing."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw


def test_output_shape_and_dtype_come_from_tracing():
    x = tw.Input(n_units=4, name="x")
    assert tw.Lambda(tf.reduce_mean, x, axis=-1).shape == (None,)
    assert tw.Lambda(lambda t: tf.cast(t, tf.int32), x).dtype == tf.int32
    # dtype= is the Lambda's own output description, so it is not passed to the function
    assert tw.Lambda(tf.identity, x, dtype=tf.float32).dtype == tf.float32
    pair = tw.Lambda(lambda a, b: tf.concat([a, b], -1), x, tw.Input(n_units=2))
    assert pair.shape == (None, 6)


def test_tracing_runs_no_data():
    calls = []

    def record(t):
        calls.append(tf.executing_eagerly())
        return t * 2.0

    layer = tw.Lambda(record, tw.Input(n_units=1, name="x"))
    assert calls == [False]  # traced symbolically once, never run eagerly
    assert layer.compute(tf.ones([1, 1])).numpy().tolist() == [[2.0]]


def test_a_function_that_does_not_fit_its_inputs_fails_at_construction():
    x = tw.Input(n_units=3, name="x")
    w = tf.ones([4, 2])
    with pytest.raises(tw.ShapeError, match=r"Lambda 'bad_matmul' does not fit.*x: \(None, 3\)"):
        tw.Lambda(lambda t: t @ w, x, name="bad_matmul")


def test_a_function_returning_several_tensors_is_refused():
    with pytest.raises(tw.ShapeError, match="must return one tensor, got tuple"):
        tw.Lambda(lambda t: (t, t), tw.Input(n_units=1))


def test_unknown_rank_needs_a_shape_and_a_given_shape_is_enough():
    x = tw.Input(n_units=2)

    def shapeless(t):
        return tf.reshape(
            t, tf.random.uniform([tf.random.uniform([], 1, 3, tf.int32)], 1, 2, tf.int32)
        )

    with pytest.raises(tw.ShapeError, match="unknown rank; pass shape="):
        tw.Lambda(shapeless, x)
    assert tw.Lambda(shapeless, x, shape=(None, 2)).shape == (None, 2)


def test_a_shape_without_the_batch_is_refused_with_the_fix():
    x = tw.Input(n_units=3)
    with pytest.raises(
        tw.ShapeError, match=r"shape=\(3,\) has rank 1.*rank 2.*Fix: e\.g\. shape=\(None, 3\)"
    ):
        tw.Lambda(tf.nn.relu, x, shape=(3,))  # Keras's Lambda(output_shape=) has no batch


def test_explicit_description_skips_tracing():
    calls = []

    def fn(t):
        calls.append(1)
        return t

    layer = tw.Lambda(fn, tw.Input(n_units=2), shape=(None, 2), dtype=tf.float32, sparse=False)
    assert calls == [] and layer.shape == (None, 2)


def test_non_callables_and_non_layers_are_refused():
    with pytest.raises(TypeError, match="needs a callable, got int"):
        tw.Lambda(3, tw.Input(n_units=1))
    with pytest.raises(TypeError, match="input 1 is a ndarray"):
        tw.Lambda(tf.add, tw.Input(n_units=1), np.ones((1, 1)))


def test_variables_are_kept_in_state_and_train():
    w = tf.Variable(tf.ones([2, 2]))
    x = tw.Input(n_units=2, value=np.ones((1, 2), "float32"))
    layer = tw.Lambda(lambda t: t @ w, x, variables=[w])
    assert layer.trainable_variables == (w,)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(layer())
    assert tape.gradient(loss, layer.trainable_variables)[0] is not None


def test_reuse_with_shares_variables_and_can_change_keywords():
    w = tf.Variable([[2.0]])
    x1, x2 = tw.Input(n_units=1), tw.Input(n_units=1)
    a = tw.Lambda(lambda t, scale=1.0: t @ w * scale, x1, variables=[w], scale=1.0)
    b = a.reuse_with(x2, scale=3.0)
    assert b.state is a.state and b.variables == (w,)
    assert b.compute(tf.ones([1, 1])).numpy().tolist() == [[6.0]]
    assert a.compute(tf.ones([1, 1])).numpy().tolist() == [[2.0]]


def test_keyword_arguments_reach_the_function():
    x = tw.Input(n_units=3, value=[[1.0, 2.0, 3.0]])
    assert tw.Lambda(tf.reduce_sum, x, axis=-1, keepdims=True)().numpy().tolist() == [[6.0]]


def test_lambda_without_inputs_is_a_constant():
    const = tw.Lambda(lambda: tf.constant([[1.0, 2.0]]))
    assert const.inputs == () and const.shape == (1, 2)
    assert (const * 2.0)().numpy().tolist() == [[2.0, 4.0]]


def test_reuse_with_passes_only_options_the_function_takes():
    x = tw.Input(n_units=1)
    plain = tw.Lambda(tf.math.negative, x)
    again = plain.reuse_with(tw.Input(n_units=1), training=False)  # ignored, not an error
    assert again.compute(tf.ones([1, 1])).numpy().tolist() == [[-1.0]]

    def scaled(t, training=True):
        return t * (2.0 if training else 1.0)

    mode = tw.Lambda(scaled, x)
    inference = mode.reuse_with(tw.Input(n_units=1), training=False)
    assert inference.compute(tf.ones([1, 1])).numpy().tolist() == [[1.0]]
    assert mode.compute(tf.ones([1, 1])).numpy().tolist() == [[2.0]]
