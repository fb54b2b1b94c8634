"""GroupNorm and InstanceNorm: statistics per example and group, errors."""

import numpy as np
import pytest

import tensorweave as tw


def test_each_example_and_group_is_normalized_on_its_own():
    rng = np.random.default_rng(0)
    value = (rng.standard_normal((3, 5, 6)) * [1, 2, 3, 4, 5, 6] + 7).astype("float32")
    out = tw.compile(tw.layers["GroupNorm.v1"](tw.Input(batch_shape=(None, None, 6)), 3))(value)
    grouped = out.numpy().reshape(3, 5, 3, 2)
    np.testing.assert_allclose(grouped.mean(axis=(1, 3)), 0.0, atol=1e-5)
    np.testing.assert_allclose(grouped.std(axis=(1, 3)), 1.0, atol=1e-3)


def test_instance_norm_is_one_group_per_channel():
    x = tw.Input(shape=(4, 4, 3))
    instance = tw.layers["InstanceNorm.v1"](x)
    assert instance.groups == 3 and instance.gamma.shape.as_list() == [3]


def test_groups_must_divide_the_channels():
    with pytest.raises(tw.ArgumentError, match="groups=4 does not divide the 6 channels"):
        tw.layers["GroupNorm.v1"](tw.Input(shape=(6,)), 4)
    with pytest.raises(tw.ShapeError, match="no known last dimension"):
        tw.layers["InstanceNorm.v1"](tw.Input(shape=(3, None)))
