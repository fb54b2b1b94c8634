"""The noise and dropout layers against Keras 3.

Random draws cannot be shared with Keras (each library has its own generator), so each layer
is checked three ways: in training, against Keras's formula applied to the very draws our
layer made (its generator replayed from the state it had), outputs and input gradients to
1e-5; at inference (``training=False``, what ``tw.with_options`` gives), equal to Keras's
``training=False`` output (the input); and in distribution, the same mean and spread as
Keras's output on a large input.
"""

import math

import keras
import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

ALPHA_P = -1.6732632423543772848170429916717 * 1.0507009873554804934193349852946


def spatial_dropout(rate, spatial_axes):
    def formula(x, rng):
        shape = tf.shape(x)
        noise_shape = tf.concat([shape[:1], [1] * spatial_axes, shape[-1:]], axis=0)
        keep = tf.cast(rng.uniform(noise_shape) >= rate, x.dtype)
        return x * keep / (1.0 - rate)

    return formula


def gaussian_noise(stddev):
    return lambda x, rng: x + rng.normal(tf.shape(x), stddev=stddev)


def gaussian_dropout(rate):
    stddev = math.sqrt(rate / (1.0 - rate))
    return lambda x, rng: x * rng.normal(tf.shape(x), mean=1.0, stddev=stddev)


def alpha_dropout(rate):  # keras/src/layers/regularization/alpha_dropout.py, call()
    def formula(x, rng):
        kept = tf.cast(rng.uniform(tf.shape(x)) >= rate, x.dtype)
        a = ((1 - rate) * (1 + rate * ALPHA_P**2)) ** -0.5
        b = -a * ALPHA_P * rate
        return a * (x * kept + ALPHA_P * (1 - kept)) + b

    return formula


K = keras.layers
CASES = [
    # (name, options, Keras layer, formula on our draws, input shape)
    ("SpatialDropout1D.v1", {"rate": 0.4}, K.SpatialDropout1D(0.4), spatial_dropout(0.4, 1),
     (4, 5, 6)),
    ("SpatialDropout2D.v1", {"rate": 0.3}, K.SpatialDropout2D(0.3), spatial_dropout(0.3, 2),
     (4, 3, 3, 6)),
    ("SpatialDropout3D.v1", {"rate": 0.5}, K.SpatialDropout3D(0.5), spatial_dropout(0.5, 3),
     (4, 2, 3, 2, 5)),
    ("GaussianNoise.v1", {"stddev": 0.3}, K.GaussianNoise(0.3), gaussian_noise(0.3), (4, 7)),
    ("GaussianDropout.v1", {"rate": 0.2}, K.GaussianDropout(0.2), gaussian_dropout(0.2), (4, 7)),
    ("AlphaDropout.v1", {"rate": 0.25}, K.AlphaDropout(0.25), alpha_dropout(0.25), (4, 9)),
]  # fmt: skip
IDS = [c[0] for c in CASES]


@pytest.mark.parametrize(("name", "options", "ref", "formula", "shape"), CASES, ids=IDS)
def test_training_is_kerass_formula_on_our_draws(parity, randn, name, options, ref, formula, shape):
    ours = tw.layers[name](tw.Input(shape=shape[1:]), **options)
    rng = ours.state.generator()
    start = rng.state.numpy()

    def replayed(x):
        return formula(x, tf.random.Generator.from_state(start, alg=rng.algorithm))

    parity(ours, replayed, [randn(*shape)])
    assert not np.array_equal(rng.state.numpy(), start), "the layer drew from its generator"


@pytest.mark.parametrize(("name", "options", "ref", "formula", "shape"), CASES, ids=IDS)
def test_inference_is_kerass_inference(parity, randn, name, options, ref, formula, shape):
    training = tw.layers[name](tw.Input(shape=shape[1:]), **options)
    inference = tw.with_options(training, training=False)
    assert inference is not training and inference.training is False
    parity(inference, lambda x: ref(x, training=False), [randn(*shape)])


@pytest.mark.parametrize(("name", "options", "ref", "formula", "shape"), CASES, ids=IDS)
def test_training_output_is_distributed_as_kerass(randn, name, options, ref, formula, shape):
    keras.utils.set_random_seed(0)  # both generators seeded: the same draws every run
    big = (1024, *shape[1:-1], 32)
    value = randn(*big) + 1.0
    ours = tw.compile(tw.layers[name](tw.Input(shape=big[1:]), **options))(value)
    theirs = ref(value, training=True)
    for stat in (np.mean, np.std):
        assert stat(ours.numpy()) == pytest.approx(stat(np.asarray(theirs)), abs=0.05), stat
