"""Flatten, RepeatVector, Resize and DepthToSpace: shapes and errors."""

import pytest

import tensorweave as tw


def test_flatten_keeps_a_dynamic_width_dynamic():
    assert tw.layers["Flatten.v1"](tw.Input(batch_shape=(None, None, 3))).shape == (None, None)
    assert tw.layers["Flatten.v1"](tw.Input(shape=(2, 3, 4))).shape == (None, 24)


def test_errors():
    with pytest.raises(tw.ShapeError, match=r"RepeatVector.*\[batch, features\].*Flatten"):
        tw.layers["RepeatVector.v1"](tw.Input(shape=(2, 3)), 2)
    with pytest.raises(tw.ArgumentError, match="interpolation must be one of"):
        tw.layers["Resize.v1"](tw.Input(shape=(4, 4, 1)), 2, 2, interpolation="cubic")
    with pytest.raises(tw.ShapeError, match="divisible by 4"):
        tw.layers["DepthToSpace.v1"](tw.Input(shape=(2, 2, 6)), 2)


def test_resize_of_integer_images_gives_floats_unless_nearest():
    x = tw.Input(shape=(4, 4, 1), dtype="int32")
    assert tw.layers["Resize.v1"](x, 2, 2).dtype.name == "float32"
    assert tw.layers["Resize.v1"](x, 2, 2, interpolation="nearest").dtype.name == "int32"
