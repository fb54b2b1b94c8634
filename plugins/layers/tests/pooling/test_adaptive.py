"""Adaptive pooling: windows cover the input, any input size, errors."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tensorweave as tw
from tensorweave_layers.pooling.adaptive import window_mask


@given(length=st.integers(1, 30), size=st.integers(1, 10))
def test_windows_are_contiguous_nonempty_and_cover_every_step(length, size):
    mask = window_mask(length, size).numpy()
    assert mask.shape == (size, length)
    assert mask.sum(axis=1).min() >= 1 and mask.any(axis=0).all()
    for row in mask:
        steps = np.flatnonzero(row)
        assert (np.diff(steps) == 1).all()


def test_one_layer_pools_inputs_of_any_size_to_one_size():
    pool = tw.compile(
        tw.layers["AdaptiveAvgPool2D.v1"](tw.Input(batch_shape=(None, None, None, 1)), 2)
    )
    for h, w in [(2, 2), (5, 3), (9, 8)]:
        value = np.ones((1, h, w, 1), "float32")
        assert pool(value).numpy().tolist() == [[[[1.0], [1.0]], [[1.0], [1.0]]]]
    assert pool.trace_count == 1


def test_errors():
    with pytest.raises(tw.ShapeError, match=r"AdaptiveMaxPool2D.*rank 4"):
        tw.layers["AdaptiveMaxPool2D.v1"](tw.Input(shape=(4, 2)), 2)
    with pytest.raises(tw.ArgumentError, match="floating-point"):
        tw.layers["AdaptiveAvgPool2D.v1"](tw.Input(shape=(4, 4, 2), dtype="int32"), 2)
    with pytest.raises(tw.ArgumentError, match="output_size"):
        tw.layers["AdaptiveMaxPool2D.v1"](tw.Input(shape=(4, 4, 2)), (2, 2, 2))
