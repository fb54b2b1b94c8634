"""The convolution family against Keras 3: the same weights in (Keras's copied into ours),
the same outputs and input/weight gradients out, to 1e-5 in float32."""

import keras
import pytest

import tensorweave as tw

CASES = [
    # (our name, our options, Keras class, Keras options, input shape)
    ("Conv1D.v1", {"n_units": 4, "kernel_size": 3, "padding": "causal", "dilation_rate": 2,
                   "activation": "relu"},
     keras.layers.Conv1D, {"filters": 4, "kernel_size": 3, "padding": "causal",
                           "dilation_rate": 2, "activation": "relu"}, (2, 9, 3)),
    ("Conv1D.v1", {"n_units": 6, "kernel_size": 2, "groups": 3, "strides": 2, "padding": "same"},
     keras.layers.Conv1D, {"filters": 6, "kernel_size": 2, "groups": 3, "strides": 2,
                           "padding": "same"}, (2, 7, 3)),
    ("Conv2D.v1", {"n_units": 4, "kernel_size": (3, 2), "groups": 2, "strides": 2,
                   "activation": "tanh", "padding": "valid"},
     keras.layers.Conv2D, {"filters": 4, "kernel_size": (3, 2), "groups": 2, "strides": 2,
                           "activation": "tanh"}, (2, 7, 6, 4)),
    ("Conv3D.v1", {"n_units": 4, "kernel_size": 2, "groups": 2, "padding": "same"},
     keras.layers.Conv3D, {"filters": 4, "kernel_size": 2, "groups": 2, "padding": "same"},
     (2, 3, 4, 4, 2)),
    ("Conv1DTranspose.v1", {"n_units": 3, "kernel_size": 3, "strides": 2, "padding": "same"},
     keras.layers.Conv1DTranspose, {"filters": 3, "kernel_size": 3, "strides": 2,
                                    "padding": "same"}, (2, 5, 4)),
    ("Conv2DTranspose.v1", {"n_units": 3, "kernel_size": 3, "strides": 2, "padding": "valid",
                            "output_padding": 1, "activation": "sigmoid"},
     keras.layers.Conv2DTranspose, {"filters": 3, "kernel_size": 3, "strides": 2,
                                    "output_padding": 1, "activation": "sigmoid"},
     (2, 3, 4, 2)),
    ("Conv2DTranspose.v1", {"n_units": 2, "kernel_size": 3, "dilation_rate": 2,
                            "padding": "valid"},
     keras.layers.Conv2DTranspose, {"filters": 2, "kernel_size": 3, "dilation_rate": 2},
     (2, 3, 3, 2)),
    ("Conv3DTranspose.v1", {"n_units": 2, "kernel_size": 2, "strides": 2, "padding": "same"},
     keras.layers.Conv3DTranspose, {"filters": 2, "kernel_size": 2, "strides": 2,
                                    "padding": "same"}, (2, 2, 3, 3, 3)),
    ("DepthwiseConv2D.v1", {"kernel_size": 3, "depth_multiplier": 2, "strides": 2,
                            "activation": "relu", "padding": "same"},
     keras.layers.DepthwiseConv2D, {"kernel_size": 3, "depth_multiplier": 2, "strides": 2,
                                    "padding": "same", "activation": "relu"}, (2, 6, 6, 3)),
    ("SeparableConv1D.v1", {"n_units": 4, "kernel_size": 3, "depth_multiplier": 2,
                            "dilation_rate": 2, "padding": "same"},
     keras.layers.SeparableConv1D, {"filters": 4, "kernel_size": 3, "depth_multiplier": 2,
                                    "dilation_rate": 2, "padding": "same"}, (2, 8, 3)),
    ("SeparableConv2D.v1", {"n_units": 5, "kernel_size": 3, "strides": 2, "padding": "valid",
                            "activation": "relu"},
     keras.layers.SeparableConv2D, {"filters": 5, "kernel_size": 3, "strides": 2,
                                    "activation": "relu"}, (2, 7, 7, 3)),
]  # fmt: skip


def _keras_weights(ref: keras.layers.Layer) -> list:
    if hasattr(ref, "depthwise_kernel") and hasattr(ref, "pointwise_kernel"):
        return [ref.depthwise_kernel, ref.pointwise_kernel, ref.bias]
    return [ref.kernel, ref.bias]


def _our_weights(layer: tw.Layer) -> list:
    if hasattr(layer.state, "pointwise_kernel"):
        return [layer.depthwise_kernel, layer.pointwise_kernel, layer.bias]
    return [layer.kernel, layer.bias]


@pytest.mark.parametrize(
    ("name", "options", "keras_class", "keras_options", "shape"),
    CASES,
    ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)],
)
def test_convolution_matches_keras(parity, randn, name, options, keras_class, keras_options, shape):
    x = tw.Input(shape=shape[1:], name="x")
    ours = tw.layers[name](x, **options)
    ref = keras_class(**keras_options, bias_initializer="random_normal")
    ref.build((None, *shape[1:]))
    parity(
        ours,
        ref,
        [randn(*shape)],
        weights=_our_weights(ours),
        reference_weights=_keras_weights(ref),
    )
    assert tuple(ours.shape[1:]) == tuple(ref.compute_output_shape((None, *shape[1:]))[1:])
