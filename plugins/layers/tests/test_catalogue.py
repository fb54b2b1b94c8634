"""Every component of the layers catalogue (issue 22's layers, activations, initializers,
regularizers and constraints) is registered under its name, from this pack, and loads.
A missing name fails here, named."""

import pytest

import tensorweave as tw

CATALOGUE = {
    "layers": [
        # convolution
        "Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose",
        "DepthwiseConv2D", "SeparableConv1D", "SeparableConv2D",
        # pooling
        "MaxPool3D", "AvgPool3D", "AdaptiveAvgPool2D", "AdaptiveMaxPool2D",
        # shape and resampling
        "Flatten", "RepeatVector", "UpSampling1D", "UpSampling2D", "UpSampling3D",
        "ZeroPadding1D", "ZeroPadding2D", "ZeroPadding3D", "Pad", "Cropping1D", "Cropping2D",
        "Cropping3D", "DepthToSpace",
        # normalization
        "GroupNorm", "InstanceNorm", "RMSNorm", "SpectralNorm",
        # noise and dropout
        "SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D", "GaussianNoise",
        "GaussianDropout", "AlphaDropout",
        # activations as layers
        "PReLU",
    ],
    "activations": ["mish", "silu", "hard_swish", "glu", "log_sigmoid", "hard_tanh", "celu"],
    "initializers": ["truncated_normal", "lecun_normal", "lecun_uniform", "variance_scaling"],
    "regularizers": ["l1", "l2", "l1_l2", "orthogonal"],
    "constraints": ["max_norm", "min_max_norm", "non_neg", "unit_norm"],
}  # fmt: skip
NAMES = [(kind, f"{name}.v1") for kind, names in CATALOGUE.items() for name in names]


def test_the_pack_declares_the_regularizers_and_constraints_kinds():
    assert {"activations", "initializers", "regularizers", "constraints"} <= set(tw.kinds())
    assert tw.regularizers is tw.registry("regularizers")
    assert tw.constraints is tw.registry("constraints")


def test_no_name_of_the_catalogue_is_missing():
    missing = [f"{kind}:{name}" for kind, name in NAMES if name not in tw.registry(kind)]
    assert not missing, f"not registered: {missing}"


@pytest.mark.parametrize(("kind", "name"), NAMES, ids=[f"{k}:{n}" for k, n in NAMES])
def test_each_name_loads_from_this_pack(kind, name):
    info = tw.registry(kind).info(name)
    assert info.distribution == "tensorweave-layers"
    assert callable(tw.registry(kind)[f"tensorweave-layers:{name}"])
