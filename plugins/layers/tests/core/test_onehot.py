"""OneHot against numpy, out-of-range ids, errors."""

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw


def test_matches_numpy_and_pads_out_of_range():
    ids = tw.Input(batch_shape=(None, None), dtype=tf.int64)
    layer = tw.layers["tensorweave-layers:OneHot.v1"](ids, 4)
    assert layer.shape == (None, None, 4) and layer.dtype == tf.float32
    v = np.array([[0, 3, -1], [2, 2, 9]])
    want = np.eye(4, dtype="float32")[np.clip(v, 0, 3)] * ((v >= 0) & (v < 4))[..., None]
    np.testing.assert_array_equal(layer(v).numpy(), want)


def test_errors():
    with pytest.raises(TypeError, match=r"(?s)float32.*integer ids"):
        tw.layers["tensorweave-layers:OneHot.v1"](tw.Input(n_units=3), 4)
    with pytest.raises(ValueError, match="positive"):
        tw.layers["tensorweave-layers:OneHot.v1"](tw.Input(shape=(), dtype=tf.int32), 0)
