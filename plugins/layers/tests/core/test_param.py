"""Param: a changeable value read by compiled graphs without retracing; training; errors."""

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw


def test_value_changes_without_retrace():
    scale = tw.layers["tensorweave-layers:Param.v1"](2.0, name="scale")
    assert scale.shape == () and scale.dtype == tf.float32 and not scale.inputs
    x = tw.Input(n_units=2)
    f = tw.compile(x * scale)
    v = np.array([[1.0, 3.0]], "float32")
    np.testing.assert_array_equal(f(v).numpy(), 2 * v)
    scale.value = 0.5
    np.testing.assert_array_equal(f(v).numpy(), 0.5 * v)
    assert f.trace_count == 1 and float(scale.value) == 0.5


def test_trainable_param_gets_gradients_and_reuse_shares_it():
    bias = tw.layers["tensorweave-layers:Param.v1"]([0.0, 0.0], trainable=True)
    assert len(bias.trainable_variables) == 1
    x = tw.Input(n_units=2)
    y = x + bias
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(y(np.ones((3, 2), "float32")))
    np.testing.assert_array_equal(tape.gradient(loss, bias.param).numpy(), [3.0, 3.0])
    again = bias.reuse_with()
    assert again.param is bias.param
    assert not tw.layers["tensorweave-layers:Param.v1"](1.0).trainable_variables


def test_int_param_and_shape_error():
    steps = tw.layers["tensorweave-layers:Param.v1"](3)
    assert steps.dtype == tf.int64 or steps.dtype == tf.int32
    with pytest.raises(tw.ShapeError, match=r"(?s)Param 'p' holds shape \(2,\).*\(3,\)"):
        tw.layers["tensorweave-layers:Param.v1"]([1.0, 2.0], name="p").assign([1.0, 2.0, 3.0])
