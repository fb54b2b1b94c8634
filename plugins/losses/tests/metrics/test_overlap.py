"""The IoU metric against keras.metrics.BinaryIoU where a score equals the threshold."""

import keras
import numpy as np
import pytest

import tensorweave as tw
from tensorweave_losses.metrics.overlap import dice_coefficient, iou


def test_iou_counts_a_score_at_the_threshold_as_positive_as_keras():
    labels = np.array([1, 0, 1, 0, 1, 1], "float32")
    scores = np.array([0.5, 0.5, 0.2, 0.7, 0.5, 0.9], "float32")  # three at the threshold
    keras_iou = keras.metrics.BinaryIoU(target_class_ids=[1], threshold=0.5)
    keras_iou.update_state(labels, scores)
    want = float(keras_iou.result())
    assert float(iou(labels, scores, threshold=0.5)) == pytest.approx(want, rel=1e-6)
    y, p = tw.Input(shape=(), name="y"), tw.Input(shape=(), name="p")
    state = tw.metrics["iou.v1"](y, p, threshold=0.5).streaming()
    state.update(labels[:3], scores[:3])
    state.update(labels[3:], scores[3:])
    assert float(state.result()) == pytest.approx(want, rel=1e-6)
    assert want == pytest.approx(3 / 6)  # tp=3 (0.5, 0.5, 0.9), fp=2 (0.5, 0.7), fn=1 (0.2)


def test_the_dice_coefficient_keeps_counting_above_the_threshold_as_f1():
    labels = np.array([1, 0, 1], "float32")
    scores = np.array([0.5, 0.5, 0.9], "float32")
    assert float(dice_coefficient(labels, scores, threshold=0.5)) == pytest.approx(2 / 3)
