"""Constant: its value, dtype, use in a compiled graph."""

import numpy as np
import tensorflow as tf

import tensorweave as tw


def test_value_in_graphs():
    c = tw.layers["tensorweave-layers:Constant.v1"]([[1.0, -1.0]])
    assert c.shape == (1, 2) and c.dtype == tf.float32 and not c.variables
    x = tw.Input(n_units=2)
    f = tw.compile(x * c)
    np.testing.assert_array_equal(f(np.full((3, 2), 2.0, "float32")).numpy(), [[2.0, -2.0]] * 3)
    np.testing.assert_array_equal(c.value, [[1.0, -1.0]])


def test_dtype():
    c = tw.layers["tensorweave-layers:Constant.v1"](3, dtype=tf.int32)
    assert c.dtype == tf.int32 and c().numpy() == 3
