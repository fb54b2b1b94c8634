"""The new activations and ``PReLU`` against Keras 3: the same outputs and gradients (for
``PReLU`` with Keras's slopes copied in), to 1e-5 in float32."""

import keras
import numpy as np
import pytest

import tensorweave as tw

FUNCTIONS = [
    ("mish", {}, keras.activations.mish),
    ("silu", {}, keras.activations.silu),
    ("hard_swish", {}, keras.activations.hard_swish),
    ("log_sigmoid", {}, keras.activations.log_sigmoid),
    ("hard_tanh", {}, keras.activations.hard_tanh),
    ("celu", {}, keras.activations.celu),
    ("celu", {"alpha": 0.5}, lambda x: keras.activations.celu(x, alpha=0.5)),
]


@pytest.mark.parametrize(("name", "options", "ref"), FUNCTIONS, ids=[f[0] for f in FUNCTIONS])
def test_activation_matches_keras(parity, randn, name, options, ref):
    value = randn(3, 8) * 4.0  # both tails: saturation, the kinks at +-1 and +-3
    ours = tw.layers["Activation.v1"](tw.Input(n_units=8), name, **options)
    parity(ours, ref, [value])


def test_glu_halves_the_axis_as_keras(parity, randn):
    glu = tw.activations["glu.v1"]
    ours = tw.Lambda(glu, tw.Input(shape=(3, 8)))
    assert ours.shape == (None, 3, 4)
    parity(ours, keras.activations.glu, [randn(2, 3, 8)])


def test_silu_is_swish():
    assert tw.activations["silu.v1"] is tw.activations["swish.v1"]


@pytest.mark.parametrize("shared_axes", [None, [1, 2]])
def test_prelu_matches_keras(parity, randn, shared_axes):
    ours = tw.layers["PReLU.v1"](tw.Input(shape=(3, 4, 2)), shared_axes=shared_axes)
    ref = keras.layers.PReLU(alpha_initializer="random_normal", shared_axes=shared_axes)
    ref.build((None, 3, 4, 2))
    assert tuple(ours.alpha.shape) == tuple(ref.alpha.shape)
    parity(ours, ref, [randn(2, 3, 4, 2)], weights=[ours.alpha], reference_weights=[ref.alpha])


def test_prelu_starts_as_a_relu_as_keras():
    fresh = tw.layers["PReLU.v1"](tw.Input(shape=(3,)))
    ref = keras.layers.PReLU()
    ref.build((None, 3))
    np.testing.assert_array_equal(fresh.alpha.numpy(), ref.alpha.numpy())
