"""Cropping1D/2D/3D: static and dynamic sizes, errors."""

import numpy as np
import pytest

import tensorweave as tw


def test_dynamic_sizes_are_cropped_when_the_layer_runs():
    crop = tw.layers["Cropping2D.v1"](tw.Input(batch_shape=(None, None, None, 1)), ((1, 2), (0, 1)))
    assert crop.shape == (None, None, None, 1)
    out = tw.compile(crop)(np.arange(30.0, dtype="float32").reshape(1, 5, 6, 1))
    assert out.numpy()[0, :, :, 0].tolist() == [[6, 7, 8, 9, 10], [12, 13, 14, 15, 16]]


def test_cropping_everything_is_refused():
    with pytest.raises(tw.ShapeError, match=r"cropping \(2, 2\) leaves nothing"):
        tw.layers["Cropping1D.v1"](tw.Input(shape=(4, 2)), 2)
