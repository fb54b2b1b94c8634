"""Multiply: the element-wise product against numpy; shape errors."""

import numpy as np
import pytest

import tensorweave as tw


def test_matches_numpy():
    xs = [tw.Input(shape=(2, 3)) for _ in range(3)]
    vs = [np.random.default_rng(i).standard_normal((4, 2, 3)).astype("float32") for i in range(3)]
    layer = tw.layers["tensorweave-layers:Multiply.v1"](*xs)
    assert layer.shape == (None, 2, 3)
    np.testing.assert_allclose(layer(*vs).numpy(), vs[0] * vs[1] * vs[2], rtol=1e-5)


def test_mismatch_is_reported():
    a, b = tw.Input(n_units=2, name="a"), tw.Input(shape=(2, 1), name="b")
    with pytest.raises(tw.ShapeError, match=r"Multiply.*'a' \(None, 2\).*'b' \(None, 2, 1\)"):
        tw.layers["tensorweave-layers:Multiply.v1"](a, b)
