"""Conformance of the part-B convolution, pooling and normalization layers."""

from tensorweave.testing import Case, test_conformance  # noqa: F401

TENSORWEAVE_CASES = [
    Case("Conv1D.v1", {"n_units": 4, "kernel_size": 3}, inputs=[(None, None, 3)]),
    Case(
        "Conv1D.v1",
        {"n_units": 2, "kernel_size": 2, "strides": 2, "padding": "valid", "add_bias": False},
        inputs=[(None, 6, 3)],
    ),
    Case("Conv1D.v1", {"n_units": 2, "kernel_size": 3, "dilation_rate": 2}, inputs=[(None, 7, 2)]),
    Case("Conv2D.v1", {"n_units": 4, "kernel_size": 3}, inputs=[(None, 5, 5, 2)]),
    Case(
        "Conv2D.v1",
        {"n_units": 3, "kernel_size": (3, 2), "strides": 2, "padding": "valid"},
        inputs=[(None, 6, 6, 3)],
    ),
    Case(
        "Conv2D.v1",
        {"n_units": 2, "kernel_size": 2, "dilation_rate": 2},
        inputs=[(None, 6, None, 2)],
    ),
    Case("MaxPool1D.v1", {"pool_size": 2}, inputs=[(None, 6, 3)]),
    Case(
        "AvgPool1D.v1", {"pool_size": 3, "strides": 1, "padding": "same"}, inputs=[(None, None, 3)]
    ),
    Case("MaxPool2D.v1", {"pool_size": 2}, inputs=[(None, 4, 4, 2)]),
    Case("AvgPool2D.v1", {"pool_size": (2, 3), "padding": "same"}, inputs=[(None, 5, 5, 2)]),
    Case("GlobalMaxPool.v1", {}, inputs=[(None, None, 3)]),
    Case("GlobalAvgPool.v1", {}, inputs=[(None, 4, 4, 2)]),
    Case("BatchNorm.v1", {}, inputs=[(None, 4)]),
    Case("BatchNorm.v1", {"training": False}, inputs=[(None, 4)]),
    Case("BatchNorm.v1", {"momentum": 0.9, "center": False}, inputs=[(None, 3, 3, 2)]),
    Case("LayerNorm.v1", {}, inputs=[(None, 5)]),
    Case("LayerNorm.v1", {"scale": False}, inputs=[(None, None, 4)]),
]
