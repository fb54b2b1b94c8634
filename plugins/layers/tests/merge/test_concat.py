"""Concat: widths (property test), other axes, sparse equals dense, errors."""

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given
from hypothesis import strategies as st

import tensorweave as tw


@given(widths=st.lists(st.integers(1, 5), min_size=1, max_size=4), batch=st.integers(1, 3))
def test_widths_add_up(widths, batch):
    xs = [tw.Input(n_units=w) for w in widths]
    layer = tw.layers["tensorweave-layers:Concat.v1"](*xs)
    assert layer.shape == (None, sum(widths))
    vs = [np.full((batch, w), i, "float32") for i, w in enumerate(widths)]
    np.testing.assert_array_equal(layer(*vs).numpy(), np.concatenate(vs, axis=-1))


def test_other_axis_and_dynamic_sizes():
    a, b = tw.Input(shape=(2, 3)), tw.Input(batch_shape=(None, None, 3))
    layer = tw.layers["tensorweave-layers:Concat.v1"](a, b, axis=1)
    assert layer.shape == (None, None, 3)
    va, vb = np.ones((2, 2, 3), "float32"), np.zeros((2, 4, 3), "float32")
    np.testing.assert_array_equal(layer(va, vb).numpy(), np.concatenate([va, vb], axis=1))


def test_sparse_concat_equals_dense():
    a, b = tw.Input(n_units=2, sparse=True), tw.Input(n_units=3, sparse=True)
    layer = tw.layers["tensorweave-layers:Concat.v1"](a, b)
    assert layer.sparse and layer.shape == (None, 5)
    va = np.array([[0, 1], [2, 0]], "float32")
    vb = np.array([[3, 0, 0], [0, 0, 4]], "float32")
    out = layer(tf.sparse.from_dense(va), tf.sparse.from_dense(vb))
    np.testing.assert_array_equal(tf.sparse.to_dense(out).numpy(), np.concatenate([va, vb], 1))


def test_errors():
    a = tw.Input(shape=(2, 3), name="a")
    b = tw.Input(shape=(4, 3), name="b")
    with pytest.raises(tw.ShapeError, match=r"(?s)Concat 'c'.*axis 1 differs.*'a'.*'b'.*Fix"):
        tw.layers["tensorweave-layers:Concat.v1"](a, b, name="c")
    with pytest.raises(tw.ShapeError, match="different ranks"):
        tw.layers["tensorweave-layers:Concat.v1"](a, tw.Input(n_units=3))
    with pytest.raises(ValueError, match="non-batch axis"):
        tw.layers["tensorweave-layers:Concat.v1"](a, a, axis=0)
    with pytest.raises(tw.ShapeError, match="mix sparse and dense"):
        tw.layers["tensorweave-layers:Concat.v1"](
            tw.Input(n_units=2), tw.Input(n_units=2, sparse=True)
        )
