"""Adafactor where Keras's rule divides 0 by 0 (its agreement with Keras elsewhere is in
test_optimizers.py)."""

from __future__ import annotations

import numpy as np
import tensorflow as tf

import tensorweave_train as twt


def test_entries_without_gradient_stay_put_instead_of_turning_nan() -> None:
    init = np.random.RandomState(0).randn(4, 3).astype("float32")
    grad = np.zeros((4, 3), "float32")
    grad[1:, 1:] = 1.0  # row 0 and column 0 get nothing: v underflows to 0 at (0, 0)
    var = tf.Variable(init)
    opt = twt.Adafactor(0.01)
    for _ in range(3):
        opt.apply_gradients([(tf.constant(grad), var)])
    after = var.numpy()
    assert np.isfinite(after).all()  # keras.optimizers.Adafactor gives NaN everywhere
    np.testing.assert_array_equal(after[grad == 0], init[grad == 0])
    assert (after[grad != 0] < init[grad != 0]).all()
