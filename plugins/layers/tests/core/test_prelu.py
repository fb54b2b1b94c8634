"""PReLU: the slopes' shape, errors."""

import pytest

import tensorweave as tw


def test_shared_axes_give_one_slope_per_remaining_entry():
    x = tw.Input(batch_shape=(None, None, 4, 3))
    assert tw.layers["PReLU.v1"](x, shared_axes=[1, 2]).alpha.shape.as_list() == [1, 1, 3]
    with pytest.raises(tw.ShapeError, match="add that axis to shared_axes"):
        tw.layers["PReLU.v1"](x)
    with pytest.raises(tw.ArgumentError, match=r"shared_axes must be axes 1..3"):
        tw.layers["PReLU.v1"](x, shared_axes=[0])
