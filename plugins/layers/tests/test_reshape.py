"""Reshape: property test over shapes, values against numpy, errors."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tensorweave as tw


@given(
    dims=st.lists(st.integers(1, 4), min_size=1, max_size=3),
    batch=st.integers(1, 3),
    data=st.data(),
)
def test_reshape_keeps_examples(dims, batch, data):
    total = math.prod(dims)
    divisors = [d for d in range(1, total + 1) if total % d == 0]
    first = data.draw(st.sampled_from(divisors))
    target = (-1, first, total // first)
    x = tw.Input(shape=(None, *dims))
    layer = tw.layers["tensorweave-layers:Reshape.v1"](x, target)
    assert layer.shape == (None, first, total // first)
    v = np.arange(batch * total, dtype="float32").reshape(batch, *dims)
    np.testing.assert_array_equal(layer(v).numpy(), v.reshape(batch, first, total // first))


def test_dynamic_input_and_none_target():
    x = tw.Input(shape=(None, None, 4))
    layer = tw.layers["tensorweave-layers:Reshape.v1"](x, (None, 2, 2))
    assert layer.shape == (None, 2, 2)
    v = np.arange(24, dtype="float32").reshape(2, 3, 4)
    np.testing.assert_array_equal(layer(v).numpy(), v.reshape(-1, 2, 2))


def test_errors():
    x = tw.Input(n_units=6, name="x")
    with pytest.raises(tw.ShapeError, match=r"(?s)Reshape 'r'.*'x' \(None, 6\).*6 elements.*4"):
        tw.layers["tensorweave-layers:Reshape.v1"](x, (-1, 2, 2), name="r")
    with pytest.raises(ValueError, match="at most one"):
        tw.layers["tensorweave-layers:Reshape.v1"](x, (-1, -1, 3))
    with pytest.raises(ValueError, match="positive"):
        tw.layers["tensorweave-layers:Reshape.v1"](x, (-1, 0))
