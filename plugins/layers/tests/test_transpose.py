"""Transpose: default and explicit permutations against numpy; errors."""

import numpy as np
import pytest

import tensorweave as tw

V = np.arange(24, dtype="float32").reshape(1, 2, 3, 4)


def test_default_reverses_non_batch_axes():
    x = tw.Input(shape=(None, 2, 3, 4))
    layer = tw.layers["tensorweave-layers:Transpose.v1"](x)
    assert layer.shape == (None, 4, 3, 2)
    np.testing.assert_array_equal(layer(V).numpy(), V.transpose(0, 3, 2, 1))


def test_explicit_perm():
    x = tw.Input(shape=(None, 2, 3, 4))
    layer = tw.layers["tensorweave-layers:Transpose.v1"](x, (2, 3, 1))
    assert layer.shape == (None, 3, 4, 2)
    np.testing.assert_array_equal(layer(V).numpy(), V.transpose(0, 2, 3, 1))


def test_bad_perm():
    x = tw.Input(shape=(None, 2, 3), name="x")
    with pytest.raises(ValueError, match=r"(?s)perm=\(0, 1, 2\).*\(1, 2\).*'x'"):
        tw.layers["tensorweave-layers:Transpose.v1"](x, (0, 1, 2))
