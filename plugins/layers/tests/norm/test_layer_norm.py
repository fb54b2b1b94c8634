"""LayerNorm against numpy and Keras 3."""

import keras
import numpy as np
import pytest

import tensorweave as tw

LayerNorm = tw.layers["LayerNorm.v1"]
RNG = np.random.default_rng(3)


def test_matches_numpy_and_keras():
    x = tw.Input(batch_shape=(None, None, 5))
    ln = LayerNorm(x, epsilon=1e-5)
    gamma, beta = RNG.standard_normal(5).astype("float32"), RNG.standard_normal(5).astype("float32")
    ln.gamma.assign(gamma)
    ln.beta.assign(beta)
    value = RNG.standard_normal((2, 3, 5)).astype("float32") * 4
    got = tw.compile(ln)(value).numpy()
    mean, var = value.mean(-1, keepdims=True), value.var(-1, keepdims=True)
    np.testing.assert_allclose(
        got, (value - mean) / np.sqrt(var + 1e-5) * gamma + beta, rtol=1e-4, atol=1e-4
    )
    ref = keras.layers.LayerNormalization(epsilon=1e-5)
    ref.build((None, 3, 5))
    ref.set_weights([gamma, beta])
    np.testing.assert_allclose(got, ref(value).numpy(), rtol=1e-4, atol=1e-4)


def test_reuse_shares_and_errors():
    ln = LayerNorm(tw.Input(n_units=4), epsilon=1e-5)
    again = ln.reuse_with(tw.Input(shape=(2, 4)))
    assert again.gamma is ln.gamma and again.shape == (None, 2, 4)
    with pytest.raises(tw.ShapeError, match="4 features"):
        ln.reuse_with(tw.Input(n_units=3))
    with pytest.raises(tw.ShapeError, match=r"LayerNorm 'ln'.*\(None, None\)"):
        LayerNorm(tw.Input(batch_shape=(None, None)), name="ln", epsilon=1e-5)
