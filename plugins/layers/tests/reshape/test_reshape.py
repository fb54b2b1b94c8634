"""Reshape: one example's target shape (Keras's convention), against numpy and Keras, errors,
and the batch-first spelling refused with its fix."""

import math
import warnings

import keras
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tensorweave as tw

RESHAPE = "tensorweave-layers:Reshape.v1"


@given(
    dims=st.lists(st.integers(1, 4), min_size=1, max_size=3),
    batch=st.integers(1, 3),
    data=st.data(),
)
def test_reshape_keeps_examples(dims, batch, data):
    total = math.prod(dims)
    divisors = [d for d in range(1, total + 1) if total % d == 0]
    first = data.draw(st.sampled_from(divisors))
    infer = data.draw(st.booleans())
    target = (-1 if infer else first, total // first)
    x = tw.Input(shape=tuple(dims))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new convention never warns
        layer = tw.layers[RESHAPE](x, target)
    assert layer.shape == (None, first, total // first)
    v = np.arange(batch * total, dtype="float32").reshape(batch, *dims)
    np.testing.assert_array_equal(layer(v).numpy(), v.reshape(batch, first, total // first))


def test_keras_style_targets_exclude_the_batch():
    x = tw.Input(n_units=64)
    assert tw.layers[RESHAPE](x, (64,)).shape == (None, 64)
    assert tw.layers[RESHAPE](x, (8, 8, 1)).shape == (None, 8, 8, 1)
    flat = tw.layers[RESHAPE](tw.Input(shape=(4, 5)), (-1,))
    assert flat.shape == (None, 20)
    v = np.arange(40, dtype="float32").reshape(2, 4, 5)
    np.testing.assert_array_equal(flat(v).numpy(), v.reshape(2, 20))


@pytest.mark.parametrize("target", [(3, 4), (-1, 2, 2), (12,), (-1,), (2, -1)])
def test_matches_keras_reshape(target):
    value = np.arange(24, dtype="float32").reshape(2, 12)
    ours = tw.layers[RESHAPE](tw.Input(shape=(12,)), target)
    theirs = keras.layers.Reshape(target)
    expected = keras.ops.convert_to_numpy(theirs(value))
    assert ours.shape == theirs.compute_output_shape((None, 12))
    np.testing.assert_array_equal(ours.compute(value).numpy(), expected)


def test_an_inferred_size_of_a_dynamic_input_keeps_the_batch():
    x = tw.Input(batch_shape=(None, None, 4))
    layer = tw.layers[RESHAPE](x, (-1, 2))
    assert layer.shape == (None, None, 2)
    v = np.arange(24, dtype="float32").reshape(2, 3, 4)
    np.testing.assert_array_equal(layer(v).numpy(), v.reshape(2, 6, 2))
    assert tw.compile(layer)(v).shape == (2, 6, 2)


def test_a_batch_first_target_fails_naming_both_fixes():
    x = tw.Input(n_units=6, name="x")
    with pytest.raises(
        tw.ArgumentError,
        match=r"batch dimension.*Reshape\(x, \(2, 3\)\).*tw\.ops\.reshape\(x, \(-1, 2, 3\)\)",
    ):
        tw.layers[RESHAPE](x, (None, 2, 3))


def test_a_leading_minus_one_is_an_inferred_example_size():
    x = tw.Input(n_units=6, name="x")
    layer = tw.layers[RESHAPE](x, (-1, 2, 3))  # one example's shape: the -1 is 1
    assert layer.shape == (None, 1, 2, 3)
    v = np.arange(12, dtype="float32").reshape(2, 6)
    np.testing.assert_array_equal(layer(v).numpy(), v.reshape(2, 1, 2, 3))


def test_targets_that_cannot_hold_an_example_fail_with_the_fix():
    x = tw.Input(n_units=6, name="x")
    with pytest.raises(tw.ShapeError, match=r"(?s)Reshape 'r'.*'x' \(None, 6\).*6 elements.*4.*-1"):
        tw.layers[RESHAPE](x, (2, 2), name="r")
    with pytest.raises(tw.ShapeError, match=r"not a multiple of 4"):
        tw.layers[RESHAPE](x, (-1, 4))
    with pytest.raises(tw.ArgumentError, match="at most one"):
        tw.layers[RESHAPE](x, (-1, -1, 3))
    with pytest.raises(tw.ArgumentError, match="positive"):
        tw.layers[RESHAPE](x, (-1, 0))
    with pytest.raises(tw.ArgumentError, match=r"None, which is no size.*-1"):
        tw.layers[RESHAPE](x, (2, None))
    with pytest.raises(tw.ArgumentError, match=r"got 6\. Fix: Reshape\(x, \(6,\)\)"):
        tw.layers[RESHAPE](x, 6)
