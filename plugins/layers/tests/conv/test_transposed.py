"""Transposed convolutions: output sizes, output_padding, dilated kernels, errors."""

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import tensorweave as tw
from tensorweave_layers.conv.transposed import dilate_kernel

Conv1DTranspose = tw.layers["Conv1DTranspose.v1"]
Conv2DTranspose = tw.layers["Conv2DTranspose.v1"]


@given(
    length=st.integers(1, 6),
    kernel=st.integers(1, 4),
    strides=st.integers(1, 3),
    padding=st.sampled_from(["same", "valid"]),
    extra=st.integers(0, 2),
)
@settings(max_examples=60)
def test_the_static_size_is_the_size_computed(length, kernel, strides, padding, extra):
    output_padding = extra if extra < strides else None
    options = {"strides": strides, "padding": padding, "output_padding": output_padding}
    if padding == "same" and output_padding is not None:  # Keras's size, which may be 0
        assume((length - 1) * strides + kernel % 2 + output_padding >= 1)
    static = Conv1DTranspose(tw.Input(shape=(length, 2)), 3, kernel, **options)
    dynamic = Conv1DTranspose(tw.Input(batch_shape=(None, None, 2)), 3, kernel, **options)
    assert dynamic.shape == (None, None, 3)
    out = tw.compile(dynamic)(np.ones((1, length, 2), "float32"))
    assert out.shape[1] == static.shape[1] >= 1


def test_a_forward_convolution_maps_the_output_back_to_the_input_size():
    x = tw.Input(shape=(5, 2))
    up = Conv1DTranspose(x, 2, 3, strides=2, padding="valid", output_padding=1)
    down = tw.layers["Conv1D.v1"](up, 2, 3, strides=2, padding="valid")
    assert up.shape == (None, 12, 2) and down.shape == (None, 5, 2)


def test_dilate_kernel_spreads_taps_and_keeps_gradients():
    k = tf.Variable(tf.reshape(tf.range(1.0, 5.0), (2, 2, 1, 1)))
    with tf.GradientTape() as tape:
        spread = dilate_kernel(k, (2, 3))
        total = tf.reduce_sum(spread)
    assert spread.shape.as_list() == [3, 4, 1, 1]
    assert spread[..., 0, 0].numpy().tolist() == [[1, 0, 0, 2], [0, 0, 0, 0], [3, 0, 0, 4]]
    assert tape.gradient(total, k).numpy().ravel().tolist() == [1.0] * 4


def test_errors_name_the_layer_and_the_fix():
    x = tw.Input(shape=(4, 4, 2))
    with pytest.raises(tw.ArgumentError, match=r"output_padding .* smaller than its stride"):
        Conv2DTranspose(x, 2, strides=2, output_padding=2, padding="same")
    with pytest.raises(tw.ShapeError, match=r"Conv2DTranspose.*rank 4.*Conv1DTranspose"):
        Conv2DTranspose(tw.Input(shape=(4, 2)), 2, padding="same")
    conv = Conv2DTranspose(x, 3, padding="same")
    assert conv.kernel.shape.as_list() == [3, 3, 3, 2]
    with pytest.raises(tw.ShapeError, match="cannot share the kernel"):
        conv.reuse_with(tw.Input(shape=(4, 4, 5)))


@settings(max_examples=40)
@given(
    length=st.integers(1, 6),
    kernel=st.integers(1, 4),
    strides=st.integers(1, 3),
    dilation=st.integers(1, 2),
    padding=st.sampled_from(["same", "valid"]),
)
def test_it_is_the_adjoint_of_the_forward_convolution(length, kernel, strides, dilation, padding):
    """<conv_transpose(x), y> = <x, conv(y)> with the same kernel: what a transposed
    convolution is, whatever TensorFlow's own transposed kernels accept on this CPU."""
    assume(strides == 1 or dilation == 1)
    up = Conv1DTranspose(
        tw.Input(shape=(length, 2)),
        3,
        kernel,
        strides=strides,
        dilation_rate=dilation,
        padding=padding,
        add_bias=False,
    )
    rng = np.random.default_rng(length * 100 + kernel * 10 + strides)
    x = rng.standard_normal((2, length, 2)).astype("float32")
    y = rng.standard_normal((2, up.shape[1], 3)).astype("float32")
    forward = tf.nn.convolution(
        y, up.kernel, strides=strides, padding=padding.upper(), dilations=dilation
    )
    assert forward.shape[1] == length
    left = tf.reduce_sum(up.compute(tf.constant(x)) * y)
    right = tf.reduce_sum(x * forward)
    np.testing.assert_allclose(float(left), float(right), rtol=1e-4, atol=1e-4)
