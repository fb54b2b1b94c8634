"""The element-wise merges: counts of inputs, shapes and dtypes, and padding masks."""

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw


@pytest.mark.parametrize(
    "name", ["Subtract.v1", "Average.v1", "Maximum.v1", "Minimum.v1", "Multiply.v1"]
)
def test_masks_of_the_inputs_combine(name):
    a, b = (
        tw.Input(batch_shape=(None, None, 2), name="a"),
        tw.Input(batch_shape=(None, None, 2), name="b"),
    )
    ma, mb = (tw.Input(batch_shape=(None, None), dtype=tf.bool, name=n) for n in ("ma", "mb"))
    a.padding_mask = ma
    assert tw.layers[name](a, b).padding_mask is ma
    b.padding_mask = mb
    both = tw.layers[name](a, b).padding_mask
    assert both.compute(
        tf.constant([[True, True]]), tf.constant([[True, False]])
    ).numpy().tolist() == [[True, False]]


def test_errors():
    a, b = tw.Input(n_units=2, name="a"), tw.Input(n_units=3, name="b")
    with pytest.raises(tw.ArgumentError, match=r"(?s)exactly 2 input.*got 3.*Fix"):
        tw.layers["Subtract.v1"](a, a, a)
    with pytest.raises(tw.ShapeError, match="do not match"):
        tw.layers["Maximum.v1"](a, b)
    with pytest.raises(TypeError, match="different dtypes"):
        tw.layers["Average.v1"](a, tw.Input(n_units=2, dtype=tf.float64))


def test_multiply_matches_numpy():
    xs = [tw.Input(shape=(2, 3)) for _ in range(3)]
    vs = [np.random.default_rng(i).standard_normal((4, 2, 3)).astype("float32") for i in range(3)]
    layer = tw.layers["tensorweave-layers:Multiply.v1"](*xs)
    assert layer.shape == (None, 2, 3)
    np.testing.assert_allclose(layer(*vs).numpy(), vs[0] * vs[1] * vs[2], rtol=1e-5)


def test_multiply_reports_a_shape_mismatch():
    a, b = tw.Input(n_units=2, name="a"), tw.Input(shape=(2, 1), name="b")
    with pytest.raises(tw.ShapeError, match=r"Multiply.*'a' \(None, 2\).*'b' \(None, 2, 1\)"):
        tw.layers["tensorweave-layers:Multiply.v1"](a, b)
