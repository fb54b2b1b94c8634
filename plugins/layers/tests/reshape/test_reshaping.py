"""Flatten, RepeatVector and DepthToSpace: shapes and errors."""

import pytest

import tensorweave as tw


def test_flatten_keeps_a_dynamic_width_dynamic():
    assert tw.layers["Flatten.v1"](tw.Input(batch_shape=(None, None, 3))).shape == (None, None)
    assert tw.layers["Flatten.v1"](tw.Input(shape=(2, 3, 4))).shape == (None, 24)


def test_errors():
    with pytest.raises(tw.ShapeError, match=r"RepeatVector.*\[batch, features\].*Flatten"):
        tw.layers["RepeatVector.v1"](tw.Input(shape=(2, 3)), 2)
    with pytest.raises(tw.ShapeError, match="divisible by 4"):
        tw.layers["DepthToSpace.v1"](tw.Input(shape=(2, 2, 6)), 2)
