"""Conformance of the convolution family and the pooling layers of the catalogue."""

from tensorweave.testing import Case, test_conformance  # noqa: F401

TENSORWEAVE_CASES = [
    Case("Conv1D.v1", {"n_units": 4, "kernel_size": 3, "padding": "causal", "groups": 2,
                       "activation": "relu", "w_regularizer": "l2"}, inputs=[(None, None, 2)]),
    Case("Conv3D.v1", {"n_units": 2, "kernel_size": 2, "w_constraint": "max_norm"},
         inputs=[(None, 3, 3, 3, 2)]),
    Case("Conv1DTranspose.v1", {"n_units": 3, "kernel_size": 3, "strides": 2},
         inputs=[(None, None, 2)]),
    Case("Conv2DTranspose.v1", {"n_units": 2, "kernel_size": 3, "strides": 2,
                                "padding": "valid", "output_padding": 1},
         inputs=[(None, 3, None, 2)]),
    Case("Conv3DTranspose.v1", {"n_units": 2, "kernel_size": 2, "strides": 2},
         inputs=[(None, 2, 2, 2, 1)]),
    Case("DepthwiseConv2D.v1", {"kernel_size": 3, "depth_multiplier": 2},
         inputs=[(None, 5, 5, 2)]),
    Case("SeparableConv1D.v1", {"n_units": 3, "kernel_size": 3, "dilation_rate": 2, "padding": "same"},
         inputs=[(None, None, 2)]),
    Case("SeparableConv2D.v1", {"n_units": 3, "kernel_size": 3, "strides": 2},
         inputs=[(None, 6, 6, 2)]),
    Case("MaxPool3D.v1", {"pool_size": 2}, inputs=[(None, 4, 4, 4, 2)]),
    Case("AvgPool3D.v1", {"pool_size": 2, "padding": "same"}, inputs=[(None, 3, None, 4, 2)]),
    Case("AdaptiveAvgPool2D.v1", {"output_size": (2, 3)}, inputs=[(None, None, None, 2)]),
    Case("AdaptiveMaxPool2D.v1", {"output_size": 2}, inputs=[(None, 5, 4, 2)]),
]  # fmt: skip
