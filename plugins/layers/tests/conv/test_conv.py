"""Conv1D/Conv2D: numeric oracles (tf.nn, Keras 3), shape properties, sharing and errors."""

import keras
import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given
from hypothesis import strategies as st

import tensorweave as tw

Conv1D = tw.layers["Conv1D.v1"]
Conv2D = tw.layers["Conv2D.v1"]
RNG = np.random.default_rng(0)


def _image(*shape):
    return RNG.standard_normal(shape).astype("float32")


@pytest.mark.parametrize(
    ("kernel", "stride", "dilation", "padding"),
    [(3, 1, 1, "same"), ((3, 2), 2, 1, "valid"), (2, 1, 2, "same"), (3, (1, 2), 1, "same")],
)
def test_conv2d_matches_tf_nn_and_keras(kernel, stride, dilation, padding):
    x = tw.Input(shape=(7, 6, 3), name="img")
    conv = Conv2D(x, 4, kernel, strides=stride, dilation_rate=dilation, padding=padding)
    conv.bias.assign(tf.range(4, dtype=tf.float32))
    value = _image(2, 7, 6, 3)
    got = tw.compile(conv)(value).numpy()
    want = (
        tf.nn.conv2d(
            value, conv.kernel, strides=stride, padding=padding.upper(), dilations=dilation
        )
        + conv.bias
    )
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-5)
    ref = keras.layers.Conv2D(4, kernel, strides=stride, dilation_rate=dilation, padding=padding)
    ref.build((None, 7, 6, 3))
    ref.set_weights([conv.kernel.numpy(), conv.bias.numpy()])
    np.testing.assert_allclose(got, ref(value).numpy(), rtol=1e-5, atol=1e-5)
    assert got.shape[1:] == conv.shape[1:]


def test_conv1d_matches_tf_nn_and_keras():
    x = tw.Input(batch_shape=(None, None, 3), name="seq")
    conv = Conv1D(x, 5, 3, strides=2, padding="valid", add_bias=False)
    value = _image(2, 9, 3)
    got = conv.compute(tf.constant(value)).numpy()
    want = tf.nn.conv1d(value, conv.kernel, stride=2, padding="VALID").numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    ref = keras.layers.Conv1D(5, 3, strides=2, padding="valid", use_bias=False)
    ref.build((None, 9, 3))
    ref.set_weights([conv.kernel.numpy()])
    np.testing.assert_allclose(got, ref(value).numpy(), rtol=1e-5, atol=1e-5)
    assert not hasattr(conv.state, "bias") and conv.trainable_variables == (conv.kernel,)


def test_distinct_convs_get_distinct_filters():
    x = tw.Input(shape=(5, 5, 2))
    a, b = Conv2D(x, 3, padding="same"), Conv2D(x, 3, padding="same")
    assert not np.allclose(a.kernel.numpy(), b.kernel.numpy())


def test_reuse_with_shares_filters_and_may_change_stride():
    x1 = tw.Input(shape=(8, 8, 2), name="a")
    x2 = tw.Input(shape=(6, 6, 2), name="b")
    conv = Conv2D(x1, 3, 3, padding="same")
    strided = conv.reuse_with(x2, strides=2, padding="valid")
    assert strided.shares_state_with(conv) and strided.kernel is conv.kernel
    assert strided.shape == (None, 2, 2, 3)
    value = _image(1, 6, 6, 2)
    conv.kernel.assign(conv.kernel * 2.0)
    want = tf.nn.conv2d(value, conv.kernel, 2, "VALID") + conv.bias
    np.testing.assert_allclose(strided.compute(value).numpy(), want.numpy(), rtol=1e-5, atol=1e-5)


def _spatial_case():
    return st.tuples(
        st.integers(1, 12),  # length
        st.integers(1, 4),  # kernel
        st.integers(1, 3),  # stride
        st.integers(1, 3),  # dilation
        st.sampled_from(["same", "valid"]),
    ).filter(lambda c: c[2] == 1 or c[3] == 1)


@given(case=_spatial_case(), channels=st.integers(1, 3))
def test_conv1d_output_shape_property(case, channels):
    length, kernel, stride, dilation, padding = case
    x = tw.Input(batch_shape=(None, length, channels))
    if padding == "valid" and length < (kernel - 1) * dilation + 1:
        with pytest.raises(tw.ShapeError, match="too small"):
            Conv1D(x, 2, kernel, strides=stride, dilation_rate=dilation, padding=padding)
        return
    conv = Conv1D(x, 2, kernel, strides=stride, dilation_rate=dilation, padding=padding)
    out = conv.compute(tf.zeros((1, length, channels)))
    assert tuple(out.shape[1:]) == conv.shape[1:]
    dynamic = Conv1D(
        tw.Input(batch_shape=(None, None, channels)),
        2,
        kernel,
        strides=stride,
        dilation_rate=dilation,
        padding=padding,
    )
    assert dynamic.shape == (None, None, 2)


@given(h=_spatial_case(), w=_spatial_case(), n_units=st.integers(1, 3))
def test_conv2d_output_shape_property(h, w, n_units):
    (hl, hk, hs, hd, padding), (wl, wk, ws, wd, _) = h, w
    if max(hs, ws) > 1 and max(hd, wd) > 1:
        return  # TensorFlow does not combine strides and dilations (tested below)
    x = tw.Input(batch_shape=(None, hl, wl, 2))
    kw = {"strides": (hs, ws), "dilation_rate": (hd, wd), "padding": padding}
    too_small = padding == "valid" and (hl < (hk - 1) * hd + 1 or wl < (wk - 1) * wd + 1)
    if too_small:
        with pytest.raises(tw.ShapeError):
            Conv2D(x, n_units, (hk, wk), **kw)
        return
    conv = Conv2D(x, n_units, (hk, wk), **kw)
    out = conv.compute(tf.zeros((2, hl, wl, 2)))
    assert tuple(out.shape) == (2, *conv.shape[1:])


def test_error_wrong_rank_names_layer_shape_and_fix():
    x = tw.Input(shape=(5, 3), name="seq")
    with pytest.raises(tw.ShapeError) as err:
        Conv2D(x, 4, name="my_conv", padding="same")
    text = str(err.value)
    assert "Conv2D 'my_conv'" in text and "(None, 5, 3)" in text and "rank 4" in text
    assert "Conv1D" in text
    with pytest.raises(tw.ShapeError, match="rank 3"):
        Conv1D(tw.Input(n_units=3), 2, padding="same")


def test_error_unknown_channels_sparse_and_bad_options():
    with pytest.raises(tw.ShapeError, match="channel"):
        Conv1D(tw.Input(shape=(5, None)), 2, padding="same")
    with pytest.raises(tw.ShapeError, match="sparse"):
        Conv1D(tw.Input(shape=(5, 3), sparse=True), 2, padding="same")
    x = tw.Input(shape=(9, 9, 1))
    with pytest.raises(ValueError, match=r"strides .* dilation_rate"):
        Conv2D(x, 2, strides=2, dilation_rate=2, padding="same")
    with pytest.raises(ValueError, match="padding"):
        Conv2D(x, 2, padding="full")
    with pytest.raises(ValueError, match="kernel_size"):
        Conv2D(x, 2, kernel_size=(3, 3, 3), padding="same")
    with pytest.raises(tw.ShapeError, match="too small"):
        Conv2D(tw.Input(shape=(2, 9, 1)), 2, 3, padding="valid")


def test_error_reuse_on_other_channel_count():
    conv = Conv2D(tw.Input(shape=(4, 4, 3)), 2, padding="same")
    with pytest.raises(tw.ShapeError, match="cannot share the kernel"):
        conv.reuse_with(tw.Input(shape=(4, 4, 5)))


def test_unknown_initializer_name_is_reported():
    with pytest.raises(tw.UnknownComponentError, match="Conv1D: w_init='glorot_fancy'"):
        Conv1D(tw.Input(shape=(4, 2)), 2, w_init="glorot_fancy", padding="same")


def test_callable_initializer():
    conv = Conv1D(
        tw.Input(shape=(4, 2)), 2, 1, w_init=lambda shape, dtype: tf.ones(shape), padding="same"
    )
    np.testing.assert_array_equal(conv.kernel.numpy(), np.ones((1, 2, 2)))


def test_groups_must_divide_channels_and_filters():
    x = tw.Input(shape=(8, 8, 6))
    conv = Conv2D(x, 4, groups=2, padding="same")
    assert conv.kernel.shape.as_list() == [3, 3, 3, 4]
    with pytest.raises(tw.ArgumentError, match=r"groups=4 must divide both .* \(6\)"):
        Conv2D(x, 4, groups=4, padding="same")
    with pytest.raises(tw.ArgumentError, match="groups must be a positive integer"):
        Conv2D(x, 4, groups=0, padding="same")


def test_causal_output_at_t_depends_on_inputs_up_to_t_only():
    x = tw.Input(batch_shape=(None, None, 2))
    conv = Conv1D(x, 3, 3, padding="causal", dilation_rate=2)
    value = _image(1, 9, 2)
    changed = value.copy()
    changed[:, 5:] += 1.0  # the future of step 4
    a, b = conv.compute(tf.constant(value)).numpy(), conv.compute(tf.constant(changed)).numpy()
    np.testing.assert_array_equal(a[:, :5], b[:, :5])
    assert not np.allclose(a[:, 5:], b[:, 5:])
    with pytest.raises(tw.ArgumentError, match="'causal'"):
        Conv2D(tw.Input(shape=(4, 4, 1)), 2, padding="causal")


def test_activation_is_applied_after_the_bias():
    conv = Conv1D(tw.Input(shape=(4, 1)), 1, 1, activation="relu", w_init="ones", padding="same")
    conv.bias.assign([-2.0])
    out = conv.compute(tf.constant([[[1.0], [3.0], [2.0], [0.0]]])).numpy()
    assert out[0, :, 0].tolist() == [0.0, 1.0, 0.0, 0.0]
