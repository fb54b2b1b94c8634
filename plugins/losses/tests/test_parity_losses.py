"""The catalogue's losses against their Keras 3 counterparts: the same inputs give the same
value and the same gradient with respect to the predictions (float32, 1e-5), for the
``mean``, ``sum`` and ``none`` reductions, weighted; Dice and Tversky also against numpy."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import keras
import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

rng = np.random.default_rng(7)
B, C = 3, 4
KERAS_REDUCTIONS = {"mean": "sum_over_batch_size", "sum": "sum", "none": None}


def normal(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype("float32")


def uniform(*shape: int, low: float = 0.0) -> np.ndarray:
    return (low + rng.random(shape)).astype("float32")


def binary(*shape: int) -> np.ndarray:
    return rng.integers(0, 2, size=shape).astype("float32")


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)).astype("float32")


ONE_HOT = np.eye(C, dtype="float32")[rng.integers(0, C, size=B)]
CTC_LABELS = np.array([[1, 2, 0], [3, 3, 1], [2, 0, 0]], "int64")  # 0: blank and padding


def keras_tversky(alpha: float, beta: float, **kwargs: Any) -> keras.losses.Loss:
    """``keras.losses.Tversky`` with ``alpha`` on false positives: Keras <= 3.15 weighs
    false negatives by ``alpha`` (fixed by keras-team/keras#23333), probed here."""
    probe = keras.losses.Tversky(alpha=1.0, beta=0.0, reduction=None)
    tp_and_fp = float(probe(np.array([[1.0, 0.0]]), np.array([[1.0, 1.0]])))
    alpha_on_fp = tp_and_fp > 0.25  # 1 - 1 / (1 + alpha), else 0
    return keras.losses.Tversky(
        alpha=alpha if alpha_on_fp else beta, beta=beta if alpha_on_fp else alpha, **kwargs
    )


# (registered name, its options, the Keras loss with those options, labels, predictions)
Row = tuple[str, dict[str, Any], Callable[..., keras.losses.Loss], np.ndarray, np.ndarray]
ROWS: list[Row] = [
    (
        "binary_focal_cross_entropy.v1",
        {"apply_class_balancing": True, "alpha": 0.3, "gamma": 1.5, "from_logits": True},
        lambda **kw: keras.losses.BinaryFocalCrossentropy(
            apply_class_balancing=True, alpha=0.3, gamma=1.5, from_logits=True, **kw
        ),
        binary(B, C),
        normal(B, C) * 3.0,
    ),
    (
        "binary_focal_cross_entropy.v1",
        {"gamma": 2.0, "label_smoothing": 0.1},
        lambda **kw: keras.losses.BinaryFocalCrossentropy(gamma=2.0, label_smoothing=0.1, **kw),
        binary(B, C),
        uniform(B, C) * 0.98 + 0.01,
    ),
    (
        "categorical_focal_cross_entropy.v1",
        {"alpha": [0.1, 0.2, 0.3, 0.4], "gamma": 2.0, "from_logits": True},
        lambda **kw: keras.losses.CategoricalFocalCrossentropy(
            alpha=[0.1, 0.2, 0.3, 0.4], gamma=2.0, from_logits=True, **kw
        ),
        ONE_HOT,
        normal(B, C),
    ),
    (
        "categorical_focal_cross_entropy.v1",
        {"gamma": 1.0, "label_smoothing": 0.1},
        lambda **kw: keras.losses.CategoricalFocalCrossentropy(
            gamma=1.0, label_smoothing=0.1, **kw
        ),
        ONE_HOT,
        softmax(normal(B, C)),
    ),
    (
        "dice.v1",
        {"axis": (1, 2)},
        lambda **kw: keras.losses.Dice(axis=(1, 2), **kw),
        binary(B, 2, C),
        uniform(B, 2, C),
    ),
    (
        "tversky.v1",
        {"alpha": 0.3, "beta": 0.7, "axis": (1, 2)},
        lambda **kw: keras_tversky(0.3, 0.7, axis=(1, 2), **kw),
        binary(B, 2, C),
        uniform(B, 2, C),
    ),
    ("ctc.v1", {}, lambda **kw: keras.losses.CTC(**kw), CTC_LABELS, normal(B, 6, C)),
    (
        "cosine_similarity.v1",
        {},
        lambda **kw: keras.losses.CosineSimilarity(**kw),
        normal(B, C),
        normal(B, C),
    ),
    ("log_cosh.v1", {}, lambda **kw: keras.losses.LogCosh(**kw), normal(B, C), normal(B, C) * 4),
    (
        "poisson.v1",
        {},
        lambda **kw: keras.losses.Poisson(**kw),
        rng.poisson(2.0, size=(B, C)).astype("float32"),
        uniform(B, C, low=0.2) * 3.0,
    ),
    (
        "squared_hinge.v1",
        {},
        lambda **kw: keras.losses.SquaredHinge(**kw),
        binary(B, C),
        normal(B, C),
    ),
    (
        "categorical_hinge.v1",
        {},
        lambda **kw: keras.losses.CategoricalHinge(**kw),
        ONE_HOT,
        normal(B, C),
    ),
    (
        "msle.v1",
        {},
        lambda **kw: keras.losses.MeanSquaredLogarithmicError(**kw),
        uniform(B, C) * 5.0,
        uniform(B, C, low=0.1) * 5.0,
    ),
    (
        "mape.v1",
        {},
        lambda **kw: keras.losses.MeanAbsolutePercentageError(**kw),
        uniform(B, C, low=0.5),
        normal(B, C),
    ),
]
IDS = [f"{name}-{i}" for i, (name, *_) in enumerate(ROWS)]


def _value_and_gradient(loss: Callable[..., Any], labels: Any, predictions: np.ndarray):
    p = tf.Variable(predictions)
    with tf.GradientTape() as tape:
        value = loss(labels, p)
        total = tf.reduce_sum(value)
    return value.numpy(), tape.gradient(total, p).numpy()


@pytest.mark.parametrize(("name", "options", "keras_loss", "labels", "predictions"), ROWS, ids=IDS)
def test_value_and_gradient_equal_keras(name, options, keras_loss, labels, predictions):
    weights = uniform(B, low=0.1)
    ours = tw.losses[name]
    for reduction, keras_reduction in KERAS_REDUCTIONS.items():
        got = _value_and_gradient(
            lambda y, p, r=reduction: ours(y, p, sample_weight=weights, reduction=r, **options),
            labels,
            predictions,
        )
        theirs = keras_loss(reduction=keras_reduction)
        want = _value_and_gradient(
            lambda y, p, k=theirs: k(y, p, sample_weight=weights), labels, predictions
        )
        for g, w, what in zip(got, want, ("value", "gradient"), strict=True):
            np.testing.assert_allclose(
                g, w, rtol=1e-5, atol=1e-6, err_msg=f"{name} {reduction}: {what}"
            )


def _numpy_tversky(y: np.ndarray, p: np.ndarray, alpha: float, beta: float, axis) -> np.ndarray:
    tp = (y * p).sum(axis)
    fp = ((1 - y) * p).sum(axis)
    fn = (y * (1 - p)).sum(axis)
    return 1.0 - tp / (tp + alpha * fp + beta * fn)


def test_dice_and_tversky_equal_a_numpy_reference():
    y, p = binary(B, 5, 2), uniform(B, 5, 2)
    for axis in (None, (1, 2), -1):
        np.testing.assert_allclose(
            tw.losses["dice.v1"](y, p, axis=axis, reduction="none"),
            _numpy_tversky(y, p, 0.5, 0.5, axis),
            rtol=1e-5,
        )
        np.testing.assert_allclose(
            tw.losses["tversky.v1"](y, p, alpha=0.2, beta=0.8, axis=axis, reduction="none"),
            _numpy_tversky(y, p, 0.2, 0.8, axis),
            rtol=1e-5,
        )
    # a false positive costs alpha, a false negative beta
    only_fp = tw.losses["tversky.v1"]([[1.0, 0.0]], [[1.0, 1.0]], alpha=0.25, beta=4.0)
    np.testing.assert_allclose(only_fp, 1.0 - 1.0 / 1.25, rtol=1e-5)


def test_dice_pooled_over_the_batch_equals_keras_default():
    y, p = binary(B, 2, C), uniform(B, 2, C)
    np.testing.assert_allclose(
        tw.losses["dice.v1"](y, p), keras.losses.Dice()(y, p), rtol=1e-5, atol=1e-6
    )
