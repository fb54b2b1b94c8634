"""The catalogue's metrics against their Keras 3 counterparts: on the whole set, and streamed
over uneven batches (a node's ``streaming()`` state) against Keras's stateful metric updated
with the same batches, weighted; the Dice metric against numpy."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import keras
import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

N, C = 23, 3
SPLITS = [0, 1, 8, 9, 17, N]  # batches of 1, 7, 1, 8 and 6 examples


def _data(seed: int = 3) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, C, size=N)
    return {
        "binary": rng.integers(0, 2, size=(N, C)).astype("float32"),
        "probs": rng.random((N, C)).astype("float32"),
        "ids": ids,
        "scores": rng.standard_normal((N, C)).astype("float32"),
        "targets": rng.standard_normal((N, C)).astype("float32"),
        "outputs": rng.standard_normal((N, C)).astype("float32"),
        "weights": (0.1 + rng.random(N)).astype("float32"),
        # Keras's IoU weighs entries, not rows: one entry per example
        "mask": rng.integers(0, 2, size=N).astype("float32"),
        "mask_probs": rng.random(N).astype("float32"),
    }


DATA = _data()
BINARY = ("binary", "probs")
# (registered name, its options, the Keras metric with those options, the inputs' keys)
Row = tuple[str, dict[str, Any], Callable[[], keras.metrics.Metric], tuple[str, str]]
ROWS: list[Row] = [
    (
        "iou.v1",
        {"threshold": 0.4},
        lambda: keras.metrics.BinaryIoU(target_class_ids=[1], threshold=0.4, dtype="float32"),
        ("mask", "mask_probs"),
    ),
    (
        "mean_iou.v1",
        {"num_classes": C},
        lambda: keras.metrics.MeanIoU(num_classes=C, sparse_y_pred=False, dtype="float32"),
        ("ids", "scores"),
    ),
    (
        "mean_iou.v1",
        {"num_classes": C, "target_class_ids": [0, 2], "ignore_class": 1},
        lambda: keras.metrics.IoU(
            num_classes=C,
            target_class_ids=[0, 2],
            ignore_class=1,
            sparse_y_pred=False,
            dtype="float32",
        ),
        ("ids", "scores"),
    ),
    ("rmse.v1", {}, keras.metrics.RootMeanSquaredError, ("targets", "outputs")),
    ("mae.v1", {}, keras.metrics.MeanAbsoluteError, ("targets", "outputs")),
    ("mse.v1", {}, keras.metrics.MeanSquaredError, ("targets", "outputs")),
    ("r2.v1", {}, keras.metrics.R2Score, ("targets", "outputs")),
    (
        "r2.v1",
        {"class_aggregation": "variance_weighted_average", "num_regressors": 2},
        lambda: keras.metrics.R2Score(
            class_aggregation="variance_weighted_average", num_regressors=2
        ),
        ("targets", "outputs"),
    ),
    (
        "fbeta.v1",
        {"beta": 2.0, "threshold": 0.4, "average": "macro"},
        lambda: keras.metrics.FBetaScore(average="macro", beta=2.0, threshold=0.4),
        BINARY,
    ),
    (
        "fbeta.v1",
        {"beta": 0.5, "threshold": None, "average": "weighted"},
        lambda: keras.metrics.FBetaScore(average="weighted", beta=0.5),
        BINARY,
    ),
    (
        "fbeta.v1",
        {"threshold": 0.6, "average": "micro"},
        lambda: keras.metrics.FBetaScore(average="micro", threshold=0.6),
        BINARY,
    ),
    (
        "true_positives.v1",
        {"thresholds": [0.7, 0.2, 0.5]},
        lambda: keras.metrics.TruePositives(thresholds=[0.7, 0.2, 0.5]),
        BINARY,
    ),
    ("false_positives.v1", {}, keras.metrics.FalsePositives, BINARY),
    (
        "true_negatives.v1",
        {"thresholds": 0.3},
        lambda: keras.metrics.TrueNegatives(thresholds=0.3),
        BINARY,
    ),
    ("false_negatives.v1", {}, keras.metrics.FalseNegatives, BINARY),
    (
        "precision_at_recall.v1",
        {"recall": 0.6, "num_thresholds": 50},
        lambda: keras.metrics.PrecisionAtRecall(recall=0.6, num_thresholds=50),
        BINARY,
    ),
    (
        "precision_at_recall.v1",
        {"recall": 0.5, "class_id": 1},
        lambda: keras.metrics.PrecisionAtRecall(recall=0.5, class_id=1),
        BINARY,
    ),
    (
        "recall_at_precision.v1",
        {"precision": 0.65, "num_thresholds": 50},
        lambda: keras.metrics.RecallAtPrecision(precision=0.65, num_thresholds=50),
        BINARY,
    ),
]
IDS = [f"{name}-{i}" for i, (name, *_) in enumerate(ROWS)]


def _keras(metric: keras.metrics.Metric, batches: list[tuple[np.ndarray, ...]]) -> np.ndarray:
    for labels, predictions, weights in batches:
        metric.update_state(labels, predictions, sample_weight=weights)
    return np.asarray(metric.result())


def _node(name: str, keys: tuple[str, str], options: dict[str, Any]) -> tw.Layer:
    labels, predictions = (DATA[k] for k in keys)
    y = tw.Input(shape=labels.shape[1:], dtype=labels.dtype.name, name="y")
    p = tw.Input(shape=predictions.shape[1:], name="p")
    w = tw.Input(shape=(), name="w")
    return tw.metrics[name](y, p, sample_weight=w, **options)


def _batches(keys: tuple[str, str]) -> list[tuple[np.ndarray, ...]]:
    arrays = [DATA[keys[0]], DATA[keys[1]], DATA["weights"]]
    return [tuple(a[lo:hi] for a in arrays) for lo, hi in itertools.pairwise(SPLITS)]


@pytest.mark.parametrize(("name", "options", "keras_metric", "keys"), ROWS, ids=IDS)
def test_whole_set_and_uneven_batches_equal_keras(name, options, keras_metric, keys):
    labels, predictions = (DATA[k] for k in keys)
    whole = tw.metrics[name](labels, predictions, sample_weight=DATA["weights"], **options)
    want = _keras(keras_metric(), [(labels, predictions, DATA["weights"])])
    np.testing.assert_allclose(whole, want, rtol=1e-5, atol=1e-6, err_msg="whole set")
    state = _node(name, keys, options).streaming()
    assert state is not None, name
    for batch in _batches(keys):
        state.update(*(tf.constant(a) for a in batch))
    streamed = _keras(keras_metric(), _batches(keys))
    np.testing.assert_allclose(state.result(), streamed, rtol=1e-5, atol=1e-6, err_msg="batches")
    np.testing.assert_allclose(state.result(), whole, rtol=1e-5, atol=1e-6)


def _numpy_dice(y: np.ndarray, p: np.ndarray, w: np.ndarray, threshold: float | None) -> float:
    hard = p if threshold is None else (p > threshold).astype("float32")
    w = np.broadcast_to(w[:, None], y.shape)
    return float(2 * (w * y * hard).sum() / ((w * y).sum() + (w * hard).sum()))


@pytest.mark.parametrize("threshold", [0.5, None])
def test_dice_metric_equals_numpy_whole_and_streamed(threshold):
    y, p, w = DATA["binary"], DATA["probs"], DATA["weights"]
    want = _numpy_dice(y, p, w, threshold)
    got = tw.metrics["dice.v1"](y, p, threshold=threshold, sample_weight=w)
    np.testing.assert_allclose(got, want, rtol=1e-5)
    state = _node("dice.v1", BINARY, {"threshold": threshold}).streaming()
    for batch in _batches(BINARY):
        state.update(*batch)
    np.testing.assert_allclose(state.result(), want, rtol=1e-5)
