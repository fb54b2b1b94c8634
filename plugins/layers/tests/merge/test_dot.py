"""Dot: the batched dot product against numpy for any ranks and axes; errors."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tensorweave as tw

Dot = tw.layers["Dot.v1"]


@given(data=st.data(), rank1=st.integers(2, 4), rank2=st.integers(2, 4), size=st.integers(1, 3))
def test_dot_contracts_one_axis_of_each_input_sample_by_sample(data, rank1, rank2, size):
    a1 = data.draw(st.integers(1, rank1 - 1))
    a2 = data.draw(st.integers(1, rank2 - 1))
    shape1 = [2] + [size + 1 + i for i in range(rank1 - 1)]
    shape2 = [2] + [size + 2 + i for i in range(rank2 - 1)]
    shape2[a2] = shape1[a1]
    rng = np.random.default_rng(0)
    x1, x2 = rng.standard_normal(shape1), rng.standard_normal(shape2)
    layer = Dot(tw.Input(shape=shape1[1:]), tw.Input(shape=shape2[1:]), axes=(a1, a2))
    want = np.stack([np.tensordot(x1[b], x2[b], axes=(a1 - 1, a2 - 1)) for b in range(2)])
    want = want.reshape(2, 1) if want.ndim == 1 else want
    got = layer.compute(x1.astype("float32"), x2.astype("float32")).numpy()
    assert got.shape[1:] == layer.shape[1:]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_errors():
    a, b = tw.Input(shape=(3,)), tw.Input(shape=(4,))
    with pytest.raises(tw.ShapeError, match=r"(?s)\(3\) and axis 1 .*\(4\).*Fix"):
        Dot(a, b, axes=1)
    with pytest.raises(tw.ArgumentError, match="batch axis"):
        Dot(a, a, axes=0)
    with pytest.raises(tw.ArgumentError, match="two ints"):
        Dot(a, a, axes=(1, 1, 1))
