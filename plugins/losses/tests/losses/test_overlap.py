"""Dice and Tversky losses, IoU and Dice metrics: limits, options and errors (parity with
Keras and numpy: test_parity_losses and test_parity_metrics)."""

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorweave as tw
from tensorweave_losses import LossValueError
from tensorweave_losses.losses.overlap import dice, tversky
from tensorweave_losses.metrics.classification import f1
from tensorweave_losses.metrics.overlap import dice_coefficient, iou


def test_perfect_and_disjoint_masks():
    mask = np.array([[1.0, 0.0, 1.0]], "float32")
    np.testing.assert_allclose(dice(mask, mask), 0.0, atol=1e-6)
    np.testing.assert_allclose(dice(mask, 1.0 - mask), 1.0, atol=1e-6)
    np.testing.assert_allclose(tversky(mask, mask, alpha=0.9, beta=0.1), 0.0, atol=1e-6)
    assert float(iou(mask, mask)) == 1.0 and float(iou(mask, 1.0 - mask)) == 0.0
    assert float(iou([0.0, 0.0], [0.1, 0.2])) == 0.0  # empty masks: 0, not NaN


@settings(max_examples=5, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_tversky_at_one_half_is_dice_and_at_one_is_iou(seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, size=(4, 6)).astype("float32")
    p = rng.integers(0, 2, size=(4, 6)).astype("float32")
    np.testing.assert_allclose(
        tversky(y, p, axis=-1, reduction="none"), dice(y, p, axis=-1, reduction="none"), atol=1e-6
    )
    np.testing.assert_allclose(
        1.0 - tversky(y, p, alpha=1.0, beta=1.0), iou(y, p, threshold=0.5), atol=1e-6
    )
    np.testing.assert_allclose(dice_coefficient(y, p), f1(y, p), atol=1e-6)


def test_from_logits_applies_a_sigmoid_per_entry():
    y = np.array([[1.0, 0.0, 1.0]], "float32")
    logits = np.array([[2.0, -1.0, 0.5]], "float32")
    np.testing.assert_allclose(
        dice(y, logits, from_logits=True), dice(y, tf.sigmoid(logits)), rtol=1e-6
    )
    with pytest.raises(LossValueError, match=r"dice: from_logits=False.*from_logits=True"):
        dice(y, logits)


def test_gradients_push_towards_the_labels():
    y = tf.constant([[1.0, 0.0]])
    p = tf.Variable([[0.5, 0.5]])
    with tf.GradientTape() as tape:
        loss = tversky(y, p, alpha=0.3, beta=0.7)
    grad = tape.gradient(loss, p).numpy()
    assert grad[0, 0] < 0 < grad[0, 1]


def test_sample_weight_needs_one_loss_per_example():
    y = np.ones((2, 3), "float32")
    with pytest.raises(tw.ArgumentError, match=r"dice: sample_weight.*Fix: pass axis="):
        dice(y, y * 0.5, sample_weight=[1.0, 2.0])
    weighted = dice(y, [[0.5] * 3, [1.0] * 3], axis=-1, sample_weight=[1.0, 0.0], reduction="sum")
    # the first example alone: tp = 1.5, fp = 0, fn = 1.5
    np.testing.assert_allclose(weighted, 1.0 - 1.5 / (1.5 + 0.5 * 1.5), rtol=1e-5)
