"""SeqConcat against numpy reshape."""

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

SeqConcat = tw.layers["SeqConcat.v1"]


def test_matches_numpy_reshape():
    value = np.random.default_rng(9).standard_normal((2, 3, 4)).astype("float32")
    fixed = SeqConcat(tw.Input(shape=(3, 4)))
    dynamic = SeqConcat(tw.Input(batch_shape=(None, None, 4)))
    assert fixed.shape == (None, 12) and dynamic.shape == (None, None)
    for layer in (fixed, dynamic):
        np.testing.assert_array_equal(tw.compile(layer)(value).numpy(), value.reshape(2, 12))


def test_errors():
    with pytest.raises(tw.ShapeError, match=r"SeqConcat.*\(None, 4\)"):
        SeqConcat(tw.Input(n_units=4))


def test_seq_size_gives_a_static_width():
    value = np.random.default_rng(3).standard_normal((2, 3, 4)).astype("float32")
    layer = SeqConcat(tw.Input(batch_shape=(None, None, 4)), seq_size=3)
    assert layer.shape == (None, 12) and layer.n_units == 12
    np.testing.assert_array_equal(layer(value).numpy(), value.reshape(2, 12))
    run = tw.compile(layer)
    np.testing.assert_array_equal(run(value).numpy(), value.reshape(2, 12))
    with pytest.raises(tf.errors.InvalidArgumentError, match="differs from seq_size"):
        run(value[:, :2])
    # agrees with a static length
    assert SeqConcat(tw.Input(shape=(3, 4)), seq_size=3).shape == (None, 12)


def test_seq_size_errors():
    with pytest.raises(tw.ShapeError, match=r"seq_size=2.*\(None, 3, 4\).*length 3"):
        SeqConcat(tw.Input(shape=(3, 4)), seq_size=2)
    with pytest.raises(tw.ShapeError, match=r"seq_size=2.*known step width"):
        SeqConcat(tw.Input(batch_shape=(None, None, None)), seq_size=2)
    with pytest.raises(tw.ArgumentError, match="seq_size"):
        SeqConcat(tw.Input(batch_shape=(None, None, 4)), seq_size=0)
