"""BatchNorm: batch moments, moving statistics, the shared inference node, Keras parity."""

import keras
import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

BatchNorm = tw.layers["BatchNorm.v1"]
RNG = np.random.default_rng(2)


def test_training_normalizes_with_batch_moments_and_updates_moving_stats():
    x = tw.Input(shape=(3, 2), name="x")
    bn = BatchNorm(x, momentum=0.8, epsilon=1e-3)
    bn.gamma.assign([2.0, 0.5])
    bn.beta.assign([1.0, -1.0])
    run = tw.compile(bn)
    moving_mean, moving_var = np.zeros(2), np.ones(2)
    for step in range(3):
        value = (RNG.standard_normal((4, 3, 2)) * (step + 1) + step).astype("float32")
        got = run(value).numpy()
        mean, var = value.mean(axis=(0, 1)), value.var(axis=(0, 1))
        want = (value - mean) / np.sqrt(var + 1e-3) * [2.0, 0.5] + [1.0, -1.0]
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
        moving_mean = 0.8 * moving_mean + 0.2 * mean
        moving_var = 0.8 * moving_var + 0.2 * var
        np.testing.assert_allclose(bn.moving_mean.numpy(), moving_mean, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(bn.moving_variance.numpy(), moving_var, rtol=1e-5, atol=1e-6)


def test_inference_node_shares_statistics_and_updates_nothing():
    x = tw.Input(n_units=2, name="x")
    bn = BatchNorm(x, momentum=0.5)
    infer = bn.reuse_with(x, training=False)
    assert infer.shares_state_with(bn) and not infer.training
    assert {id(v) for v in infer.variables} == {id(v) for v in bn.variables}
    assert {v.name for v in bn.variables if not v.trainable} == {
        f"{bn.name}/moving_mean:0",
        f"{bn.name}/moving_variance:0",
    }
    value = RNG.standard_normal((8, 2)).astype("float32") * 3 + 5
    bn.compute(tf.constant(value))  # one training step moves the statistics
    mean, var = bn.moving_mean.numpy(), bn.moving_variance.numpy()
    got = tw.compile(infer)(value).numpy()
    np.testing.assert_allclose(got, (value - mean) / np.sqrt(var + 1e-3), rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(bn.moving_mean.numpy(), mean)  # unchanged by inference


def test_inference_matches_keras_batch_normalization():
    x = tw.Input(shape=(4, 4, 3))
    bn = BatchNorm(x, training=False)
    weights = [RNG.standard_normal(3).astype("float32") for _ in range(3)]
    weights.append(RNG.uniform(0.5, 2.0, 3).astype("float32"))
    for var, w in zip((bn.gamma, bn.beta, bn.moving_mean, bn.moving_variance), weights):
        var.assign(w)
    ref = keras.layers.BatchNormalization(epsilon=1e-3)
    ref.build((None, 4, 4, 3))
    ref.set_weights(weights)
    value = RNG.standard_normal((2, 4, 4, 3)).astype("float32")
    np.testing.assert_allclose(
        bn.compute(value).numpy(), ref(value, training=False).numpy(), rtol=1e-5, atol=1e-5
    )


def test_frozen_runs_as_inference_as_keras_trainable_false():
    x = tw.Input(shape=(4, 3))
    bn = BatchNorm(x)
    weights = [RNG.standard_normal(3).astype("float32") for _ in range(3)]
    weights.append(RNG.uniform(0.5, 2.0, 3).astype("float32"))
    for var, w in zip((bn.gamma, bn.beta, bn.moving_mean, bn.moving_variance), weights):
        var.assign(w)
    ref = keras.layers.BatchNormalization(epsilon=1e-3)
    ref.build((None, 4, 3))
    ref.set_weights(weights)
    ref.trainable = False
    tw.Module(x, bn).freeze()  # frozen through the module that holds it
    value = RNG.standard_normal((2, 4, 3)).astype("float32")
    got = bn.compute(value).numpy()
    np.testing.assert_allclose(got, ref(value, training=True).numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(bn.moving_mean.numpy(), weights[2])  # nothing updated


def test_module_reuse_switches_to_inference():
    x = tw.Input(n_units=2)
    block = tw.Module(x, BatchNorm(x))
    inner = block.output
    infer = block.reuse_with(tw.Input(n_units=2), training=False)
    assert infer.output.training is False and infer.output.shares_state_with(inner)


def test_errors():
    with pytest.raises(tw.ShapeError, match=r"BatchNorm.*\(None, None\)"):
        BatchNorm(tw.Input(batch_shape=(None, None)))
    with pytest.raises(tw.ShapeError, match="sparse"):
        BatchNorm(tw.Input(n_units=3, sparse=True))
    bn = BatchNorm(tw.Input(n_units=3))
    with pytest.raises(tw.ShapeError, match="3 channels"):
        bn.reuse_with(tw.Input(n_units=4), training=False)
    with pytest.raises(ValueError, match="momentum"):
        BatchNorm(tw.Input(n_units=3), momentum=1.5)
