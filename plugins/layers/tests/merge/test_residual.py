"""Residual: identity skip and learned projection against numpy; errors."""

import numpy as np
import pytest

import tensorweave as tw

rng = np.random.default_rng(4)


def test_identity_skip():
    x, h = tw.Input(n_units=3), tw.Input(n_units=3)
    layer = tw.layers["tensorweave-layers:Residual.v1"](x, h)
    assert not layer.projected and not layer.variables
    vx, vh = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    np.testing.assert_allclose(layer(vx, vh).numpy(), vx + vh, rtol=1e-5, atol=1e-6)


def test_projection_when_widths_differ():
    x, h = tw.Input(batch_shape=(None, None, 3)), tw.Input(batch_shape=(None, None, 5))
    layer = tw.layers["tensorweave-layers:Residual.v1"](x, h)
    assert layer.projected and layer.shape == (None, None, 5)
    p = layer.projection.numpy()
    assert p.shape == (3, 5)
    vx, vh = rng.standard_normal((2, 4, 3)), rng.standard_normal((2, 4, 5))
    np.testing.assert_allclose(layer(vx, vh).numpy(), vh + vx @ p, rtol=1e-5, atol=1e-5)


def test_errors():
    x = tw.Input(shape=(2, 3), name="x")
    h = tw.Input(shape=(4, 3), name="h")
    with pytest.raises(tw.ShapeError, match=r"(?s)Residual.*last axis"):
        tw.layers["tensorweave-layers:Residual.v1"](x, h)
    with pytest.raises(tw.ShapeError, match="different ranks"):
        tw.layers["tensorweave-layers:Residual.v1"](x, tw.Input(n_units=3))
