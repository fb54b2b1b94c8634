"""Gate and CoupledGate against numpy, with per-unit and grouped gates; errors."""

import numpy as np
import pytest

import tensorweave as tw

rng = np.random.default_rng(5)


def sigmoid(v):
    return 1 / (1 + np.exp(-v))


def test_gate_per_unit_and_grouped():
    x = tw.Input(n_units=4)
    vx = rng.standard_normal((3, 4)).astype("float32")
    g4, g2 = tw.Input(n_units=4), tw.Input(n_units=2)
    v4 = rng.standard_normal((3, 4)).astype("float32")
    v2 = rng.standard_normal((3, 2)).astype("float32")
    per_unit = tw.layers["tensorweave-layers:Gate.v1"](x, g4)
    np.testing.assert_allclose(per_unit(vx, v4).numpy(), vx * sigmoid(v4), rtol=1e-5)
    grouped = tw.layers["tensorweave-layers:Gate.v1"](x, g2)
    want = vx * np.repeat(sigmoid(v2), 2, axis=1)
    np.testing.assert_allclose(grouped(vx, v2).numpy(), want, rtol=1e-5)


def test_coupled_gate():
    x1, x2, g = (tw.Input(batch_shape=(None, None, 4)) for _ in range(3))
    v1, v2, vg = (rng.standard_normal((2, 3, 4)).astype("float32") for _ in range(3))
    layer = tw.layers["tensorweave-layers:CoupledGate.v1"](x1, x2, g, gate_activation="tanh")
    s = np.tanh(vg)
    np.testing.assert_allclose(
        layer(v1, v2, vg).numpy(), v1 * s + v2 * (1 - s), rtol=1e-5, atol=1e-6
    )


def test_errors():
    x, g = tw.Input(n_units=4, name="x"), tw.Input(n_units=3, name="g")
    with pytest.raises(tw.ShapeError, match=r"(?s)Gate.*'g' \(None, 3\).*dividing 4.*Fix"):
        tw.layers["tensorweave-layers:Gate.v1"](x, g)
    with pytest.raises(tw.ShapeError, match="one shape"):
        tw.layers["tensorweave-layers:CoupledGate.v1"](x, tw.Input(n_units=2), tw.Input(n_units=2))
    with pytest.raises(tw.UnknownComponentError, match="gate_activation='sigmod'"):
        tw.layers["tensorweave-layers:Gate.v1"](x, tw.Input(n_units=4), gate_activation="sigmod")
