"""Activations: registry names and versions, and each function against a numpy oracle."""

import math

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import tensorweave as tw
from tensorweave_layers import activations as act

X = np.linspace(-4.0, 4.0, 17, dtype=np.float32).reshape(1, 17)
SELU_A, SELU_S = 1.6732632423543772, 1.0507009873554805
erf = np.vectorize(math.erf)


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


ORACLES = {
    "identity": lambda x: x,
    "relu": lambda x: np.maximum(x, 0),
    "relu6": lambda x: np.clip(x, 0, 6),
    "leaky_relu": lambda x: np.where(x > 0, x, 0.2 * x),
    "elu": lambda x: np.where(x > 0, x, np.expm1(x)),
    "selu": lambda x: SELU_S * np.where(x > 0, x, SELU_A * np.expm1(x)),
    "gelu": lambda x: 0.5 * x * (1 + erf(x / np.sqrt(2))),
    "swish": lambda x: x / (1 + np.exp(-x)),
    "tanh": np.tanh,
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "hard_sigmoid": lambda x: np.clip(x / 6 + 0.5, 0, 1),
    "softplus": lambda x: np.log1p(np.exp(x)),
    "softsign": lambda x: x / (1 + np.abs(x)),
    "softmax": _softmax,
    "log_softmax": lambda x: np.log(_softmax(x)),
}


def sparsemax_reference(z):
    """Martins & Astudillo (2016), Algorithm 1, one row at a time."""
    z = np.asarray(z, dtype=np.float64)
    out = np.empty_like(z)
    for idx in np.ndindex(z.shape[:-1]):
        row = z[idx]
        s = np.sort(row)[::-1]
        cs = np.cumsum(s)
        k = np.arange(1, len(row) + 1)
        kz = k[1 + k * s > cs].max()
        tau = (cs[kz - 1] - 1) / kz
        out[idx] = np.maximum(row - tau, 0)
    return out


@pytest.mark.parametrize("name", sorted(ORACLES))
def test_against_numpy(name):
    fn = tw.activations[f"tensorweave-layers:{name}.v1"]
    np.testing.assert_allclose(fn(tf.constant(X)).numpy(), ORACLES[name](X), rtol=1e-5, atol=1e-6)


def test_every_name_is_versioned_and_latest_resolves():
    names = tw.activations.names()
    assert {f"{n}.v1" for n in [*ORACLES, "sparsemax"]} <= set(names)
    assert tw.activations.get("tensorweave-layers:relu") is act.relu
    assert tw.activations["tensorweave-layers:relu.v1"] is act.relu


def test_gelu_approximate_matches_tanh_form():
    want = 0.5 * X * (1 + np.tanh(np.sqrt(2 / np.pi) * (X + 0.044715 * X**3)))
    np.testing.assert_allclose(act.gelu(X, approximate=True).numpy(), want, rtol=1e-5, atol=1e-6)


def test_sparsemax_known_values():
    got = act.sparsemax(tf.constant([[0.5, 0.2, 0.1], [3.0, 0.0, -1.0]])).numpy()
    np.testing.assert_allclose(got, [[17 / 30, 8 / 30, 5 / 30], [1.0, 0.0, 0.0]], atol=1e-6)


@given(
    arrays(
        np.float32,
        st.tuples(st.integers(1, 4), st.integers(1, 3), st.integers(1, 7)),
        elements=st.floats(-5, 5, width=32),
    )
)
def test_sparsemax_matches_reference_and_is_a_distribution(z):
    got = act.sparsemax(tf.constant(z)).numpy()
    np.testing.assert_allclose(got, sparsemax_reference(z), atol=1e-5)
    assert (got >= 0).all()
    np.testing.assert_allclose(got.sum(-1), 1.0, atol=1e-5)


def test_sparsemax_gradient_flows():
    z = tf.Variable([[0.5, 0.2, 0.1, -3.0]])
    with tf.GradientTape() as tape:
        y = act.sparsemax(z)[0, 0]
    g = tape.gradient(y, z).numpy()
    # d p_0 / d z on the support {0, 1, 2}: delta_0j - 1/3; zero off the support
    np.testing.assert_allclose(g, [[2 / 3, -1 / 3, -1 / 3, 0.0]], atol=1e-6)


def test_sparsemax_rejects_ints():
    with pytest.raises(TypeError, match="float"):
        act.sparsemax(tf.constant([1, 2]))
