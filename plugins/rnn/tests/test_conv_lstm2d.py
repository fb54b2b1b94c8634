"""ConvLSTM2D: shapes, the RNN's options (masks, reverse, training), reuse, errors, and
the conformance kit."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave.testing import Case, InputSpec, test_conformance  # noqa: F401
from tensorweave_rnn import ConvLSTM2D

FRAMES = (None, None, 5, 5, 2)
RNG = np.random.default_rng(2)


def _with_mask(seq: tw.Layer, mask: tw.Layer, **options: object) -> tw.Layer:
    return tw.layers["ConvLSTM2D.v1"](seq, mask=mask, **options)


TENSORWEAVE_CASES = [
    Case("ConvLSTM2D.v1", {"n_units": 2, "kernel_size": 3, "padding": "same"}, inputs=[FRAMES]),
    Case(
        "ConvLSTM2D+mask",
        {"n_units": 2, "kernel_size": 2, "return_sequences": False, "reverse": True},
        inputs=[FRAMES, InputSpec((None, None), "bool")],
        factory=_with_mask,
    ),
]


def _frames(batch=2, steps=4):
    return RNG.standard_normal((batch, steps, 5, 5, 2)).astype("float32")


def test_shapes_follow_the_convolution():
    seq = tw.Input(batch_shape=FRAMES)
    assert ConvLSTM2D(seq, n_units=4, kernel_size=3, return_sequences=True).shape == (
        None,
        None,
        3,
        3,
        4,
    )
    strided = ConvLSTM2D(
        seq, n_units=4, kernel_size=3, strides=2, padding="same", return_sequences=True
    )
    assert strided.shape == (None, None, 3, 3, 4)
    last = ConvLSTM2D(seq, n_units=1, kernel_size=(1, 2), return_sequences=False)
    assert last.shape == (None, 5, 4, 1)
    assert last.compute(_frames()).shape.as_list() == [2, 5, 4, 1]


def test_a_mask_skips_steps_and_the_padding_mask_is_taken_by_default():
    seq = tw.Input(batch_shape=FRAMES, name="seq")
    mask = tw.Input(batch_shape=(None, None), dtype=tf.bool, name="mask")
    masked = ConvLSTM2D(
        seq, n_units=2, kernel_size=3, padding="same", mask=mask, return_sequences=True
    )
    frames, real = _frames(), np.array([[1, 1, 0, 0], [1, 1, 1, 1]], bool)
    out = tw.compile(masked)(frames, real).numpy()
    assert np.all(out[0, 2:] == 0) and not np.any(np.all(out[1] == 0, axis=(1, 2, 3)))
    short = ConvLSTM2D(
        seq,
        n_units=2,
        kernel_size=3,
        padding="same",
        share_state_with=masked,
        return_sequences=True,
    )
    np.testing.assert_allclose(out[0, :2], short.compute(frames[:1, :2])[0].numpy(), rtol=1e-5)
    seq.padding_mask = mask
    auto = ConvLSTM2D(
        seq,
        n_units=2,
        kernel_size=3,
        padding="same",
        share_state_with=masked,
        return_sequences=True,
    )
    assert auto.inputs == (seq, mask) and auto.padding_mask is mask
    np.testing.assert_allclose(tw.compile(auto)(frames, real).numpy(), out, rtol=1e-6)


def test_reuse_shares_the_cell_and_takes_per_use_options():
    seq = tw.Input(batch_shape=FRAMES, name="seq")
    conv = ConvLSTM2D(seq, n_units=2, kernel_size=3, dropout=0.5, return_sequences=True)
    last = conv.reuse_with(seq, return_sequences=False, training=False)
    assert last.shape == (None, 3, 3, 2) and last.cell.kernel is conv.cell.kernel
    again = last.reuse_with(tw.Input(batch_shape=FRAMES))
    frames = _frames()
    np.testing.assert_allclose(again.compute(frames), last.compute(frames), rtol=1e-6)
    np.testing.assert_allclose(
        last.compute(frames), conv.reuse_with(seq, training=False).compute(frames)[:, -1]
    )


def test_errors_name_the_layer_and_the_fix():
    with pytest.raises(tw.ShapeError, match=r"(?s)image size known.*Fix"):
        ConvLSTM2D(tw.Input(batch_shape=(None, None, None, 5, 2)), n_units=2, return_sequences=True)
    with pytest.raises(tw.ShapeError, match="smaller than the kernel"):
        ConvLSTM2D(
            tw.Input(batch_shape=(None, None, 2, 2, 1)),
            n_units=2,
            kernel_size=3,
            return_sequences=True,
        )
    with pytest.raises(tw.ArgumentError, match="cannot be combined"):
        ConvLSTM2D(
            tw.Input(batch_shape=FRAMES),
            n_units=2,
            strides=2,
            dilation_rate=2,
            return_sequences=True,
        )
