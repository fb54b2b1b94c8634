"""Mean IoU: absent and ignored classes, target classes, errors, a checkpointed state (parity
with keras.metrics.MeanIoU and IoU: test_parity_metrics)."""

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave_losses import LossValueError
from tensorweave_losses.metrics.mean_iou import StreamingMeanIoU, mean_iou


def test_mean_iou_leaves_out_absent_and_ignored_classes():
    # class 2 never occurs: the mean runs over classes 0 and 1
    np.testing.assert_allclose(mean_iou([0, 1, 1], [0, 1, 0], num_classes=3), (0.5 + 0.5) / 2)
    scores = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]], "float32")
    np.testing.assert_allclose(mean_iou([0, 1, 255], scores, num_classes=2, ignore_class=255), 1)
    np.testing.assert_allclose(
        mean_iou([0, 1, 1], [0, 1, 0], num_classes=3, target_class_ids=[1]), 0.5
    )
    assert float(mean_iou([255], [1], num_classes=2, ignore_class=255)) == 0.0


def test_mean_iou_errors_name_the_metric_and_the_fix():
    with pytest.raises(LossValueError, match=r"mean_iou.*\[0, 2\)"):
        mean_iou([0, 2], [0, 1], num_classes=2)
    with pytest.raises(tw.ArgumentError, match="mean_iou: target class id 3"):
        mean_iou([0], [0], num_classes=2, target_class_ids=[3])
    with pytest.raises(tw.ArgumentError, match="num_classes must be a positive integer"):
        StreamingMeanIoU(num_classes=0)


def test_mean_iou_state_checkpoints_its_confusion_matrix(tmp_path):
    state = StreamingMeanIoU(num_classes=2)
    state.update([0, 1, 1], [0, 1, 0])
    before = float(state.result())
    path = tf.train.Checkpoint(metric=state).write(str(tmp_path / "ckpt"))
    state.reset()
    tf.train.Checkpoint(metric=state).read(path).assert_consumed()
    assert float(state.result()) == before == pytest.approx((0.5 + 0.5) / 2)
