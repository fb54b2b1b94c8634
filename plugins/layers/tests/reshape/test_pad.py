"""Pad and ZeroPadding1D/2D/3D: amounts, modes, errors."""

import numpy as np
import pytest

import tensorweave as tw


def test_zero_padding_is_pad_of_the_spatial_axes():
    x = tw.Input(shape=(2, 3, 1), value=np.ones((1, 2, 3, 1), "float32"))
    zero = tw.layers["ZeroPadding2D.v1"](x, ((1, 0), (0, 2)))
    pad = tw.layers["Pad.v1"](x, ((1, 0), (0, 2), 0))
    assert zero.shape == pad.shape == (None, 3, 5, 1)
    np.testing.assert_array_equal(zero().numpy(), pad().numpy())
    assert zero().numpy()[0, 0].sum() == 0 and zero().numpy()[0, 1:, :3].min() == 1


def test_reflect_and_symmetric_need_room():
    x = tw.Input(shape=(3,))
    assert tw.layers["Pad.v1"](x, 2, mode="reflect").shape == (None, 7)
    assert tw.layers["Pad.v1"](x, 3, mode="symmetric").shape == (None, 9)
    with pytest.raises(tw.ShapeError, match=r"reflect padding of \(3, 3\).*at most 2"):
        tw.layers["Pad.v1"](x, 3, mode="reflect")


@pytest.mark.parametrize(
    ("padding", "message"),
    [((1, 2, 3), "2 ints or 2"), (-1, "ints >= 0"), (((1, 2, 3), 0), "ints >= 0")],
)
def test_bad_amounts_are_refused(padding, message):
    with pytest.raises(tw.ArgumentError, match=message):
        tw.layers["Pad.v1"](tw.Input(shape=(3, 3)), padding)


def test_unknown_mode():
    with pytest.raises(tw.ArgumentError, match="mode must be one of"):
        tw.layers["Pad.v1"](tw.Input(shape=(3,)), 1, mode="wrap")
