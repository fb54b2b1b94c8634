"""SeqConcat against numpy reshape."""

import numpy as np
import pytest

import tensorweave as tw

SeqConcat = tw.layers["SeqConcat.v1"]


def test_matches_numpy_reshape():
    value = np.random.default_rng(9).standard_normal((2, 3, 4)).astype("float32")
    fixed = SeqConcat(tw.Input(shape=(None, 3, 4)))
    dynamic = SeqConcat(tw.Input(shape=(None, None, 4)))
    assert fixed.shape == (None, 12) and dynamic.shape == (None, None)
    for layer in (fixed, dynamic):
        np.testing.assert_array_equal(tw.compile(layer)(value).numpy(), value.reshape(2, 12))


def test_errors():
    with pytest.raises(tw.ShapeError, match=r"SeqConcat.*\(None, 4\)"):
        SeqConcat(tw.Input(n_units=4))
