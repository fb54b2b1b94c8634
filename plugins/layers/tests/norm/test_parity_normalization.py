"""The new normalization layers against Keras 3: the same weights in, the same outputs and
input/weight gradients out (and, for SpectralNorm, the same kernel and ``u`` after a
training run), to 1e-5 in float32."""

import keras
import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw


def _randomize(*variables):
    rng = np.random.default_rng(3)
    for v in variables:
        v.assign(rng.standard_normal(tuple(v.shape)).astype("float32"))


@pytest.mark.parametrize(
    ("name", "options", "ref", "shape"),
    [
        ("GroupNorm.v1", {"groups": 2}, keras.layers.GroupNormalization(groups=2), (2, 3, 4, 6)),
        ("InstanceNorm.v1", {"epsilon": 1e-2},
         keras.layers.GroupNormalization(groups=-1, epsilon=1e-2), (2, 5, 3)),
    ],
)  # fmt: skip
def test_group_and_instance_norm_match_keras_group_normalization(
    parity, randn, name, options, ref, shape
):
    ours = tw.layers[name](tw.Input(shape=shape[1:]), **options)
    ref.build(shape)
    _randomize(ref.gamma, ref.beta)
    parity(
        ours,
        ref,
        [randn(*shape)],
        weights=[ours.gamma, ours.beta],
        reference_weights=[ref.gamma, ref.beta],
    )


def test_rms_norm_matches_keras(parity, randn):
    ours = tw.layers["RMSNorm.v1"](tw.Input(batch_shape=(None, None, 5)))
    ref = keras.layers.RMSNormalization()
    ref.build((2, 3, 5))
    _randomize(ref.scale)
    parity(ours, ref, [randn(2, 3, 5)], weights=[ours.gamma], reference_weights=[ref.scale])


def test_spectral_norm_matches_keras_in_training(parity, randn):
    x = tw.Input(shape=(5, 5, 2))
    ours = tw.layers["SpectralNorm.v1"](
        x, "Conv2D.v1", n_units=3, padding="same", power_iterations=2
    )
    ref = keras.layers.SpectralNormalization(keras.layers.Conv2D(3, 3, padding="same"), 2)
    ref.build((None, 5, 5, 2))
    _randomize(ref.layer.bias)
    trained = keras.layers.Lambda(lambda t: ref(t, training=True))
    parity(
        ours,
        trained,
        [randn(2, 5, 5, 2)],
        weights=[ours.layer.kernel, ours.layer.bias, ours.u],
        reference_weights=[ref.layer.kernel, ref.layer.bias, ref.vector_u],
    )
    # both normalized their kernel in place and moved u, in their one training run
    np.testing.assert_allclose(ours.layer.kernel.numpy(), ref.layer.kernel.numpy(), atol=1e-5)
    np.testing.assert_allclose(ours.u.numpy(), ref.vector_u.numpy(), atol=1e-5)


def test_spectral_norm_at_inference_runs_the_layer_unchanged(randn):
    x = tw.Input(n_units=4)
    sn = tw.layers["SpectralNorm.v1"](x, "Linear.v1", n_units=3, training=False)
    before = sn.layer.weights.numpy()
    value = randn(2, 4)
    np.testing.assert_allclose(
        tw.compile(sn)(value).numpy(), sn.layer.compute(tf.constant(value)).numpy()
    )
    np.testing.assert_array_equal(sn.layer.weights.numpy(), before)
