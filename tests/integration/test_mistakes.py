"""Deliberate user mistakes, as a Keras user makes them (issue #34): each is refused, or
warned about once, with a message that names the component and the fix; none passes
silently, none surfaces as a raw TensorFlow trace. Python, configs and (a few, fast) real
``tensorweave`` commands."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
import tensorweave_train as twt
from tensorweave_losses.base import ProbabilitiesAsLogitsWarning
from tensorweave_train.callbacks.monitors import MonitorError

FC, Linear = tw.layers["FC.v1"], tw.layers["Linear.v1"]
SCCE = tw.losses["sparse_categorical_cross_entropy.v1"]

#: what a raw TensorFlow error looks like: none of these may reach a user's message
RAW = ("Graph execution error", "Traceback", "node __inference", "OpKernel", "[[{{node")


def clean(err: BaseException) -> str:
    """The message of ``err``, asserted free of TensorFlow's raw trace."""
    text = str(err)
    assert not any(raw in text for raw in RAW), text
    assert isinstance(err, tw.TensorweaveError), (type(err), text)
    return text


def classifier(n_in: int = 4, n_classes: int = 3, **model: Any) -> twt.Model:
    """``x -> Linear(n_classes)`` logits, sparse cross-entropy from logits."""
    x = tw.Input(n_units=n_in, name="x")
    y = tw.Input(n_units=1, dtype="int64", name="y")
    logits = Linear(x, n_units=n_classes, name="logits")
    loss = SCCE(y, logits, from_logits=True)
    return twt.Model(x, logits, targets=y, loss=loss, **model)


def data(n: int = 32, n_in: int = 4, n_classes: int = 3) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, n_in)).astype("float32")
    return x, rng.integers(0, n_classes, size=(n, 1))


# -- silent failures: each must raise or warn once ------------------------------------------
def test_trains_a_layer_outside_the_model_is_refused() -> None:
    z = tw.Input(n_units=2, name="z")
    g = tw.Module(z, Linear(z, n_units=3), name="generator")
    x = tw.Input(n_units=3, name="x")
    d = Linear(x, n_units=1, name="critic")
    score = tw.Lambda(tf.reduce_mean, d, name="score")
    with pytest.raises(tw.ArgumentError) as err:
        twt.Model(
            x,
            d,
            loss={"generator": score, "discriminator": score},
            optimizer={"generator": "Adam.v1", "discriminator": "Adam.v1"},
            trains={"generator": g},
        )
    text = clean(err.value)
    assert "trains['generator']" in text and "outside the model's graph" in text
    assert "Fix:" in text


def test_probabilities_into_a_loss_reading_logits_warn_once_naming_from_logits() -> None:
    x = tw.Input(n_units=4, name="x")
    y = tw.Input(n_units=1, dtype="int64", name="y")
    probs = FC(x, n_units=3, activation="softmax", name="probs")
    with pytest.warns(ProbabilitiesAsLogitsWarning) as caught:
        SCCE(y, probs, from_logits=True)
    (only,) = caught
    text = str(only.message)
    assert "sparse_categorical_cross_entropy" in text and "from_logits=False" in text
    assert "'probs'" in text and only.filename == __file__  # points at the user's line
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # probabilities with from_logits=False: no warning
        SCCE(y, probs)


@pytest.mark.parametrize(
    ("monitor", "validation", "fix"),
    [
        ("val_acc", True, "monitor='val_accuracy'"),
        ("val_loss", False, "validation=(x, y)"),
    ],
)
def test_early_stopping_on_a_figure_nobody_reports_says_which_there_are(
    monitor: str, validation: bool, fix: str
) -> None:
    x = tw.Input(n_units=4, name="x")
    y = tw.Input(n_units=1, dtype="int64", name="y")
    logits = Linear(x, n_units=3, name="logits")
    loss = SCCE(y, logits, from_logits=True)
    accuracy = tw.metrics["sparse_accuracy.v1"](y, logits)
    model = twt.Model(x, logits, targets=y, loss=loss, metrics={"accuracy": accuracy})
    xs, ys = data()
    es = twt.EarlyStopping(monitor=monitor)
    kw: dict[str, Any] = {"validation": (xs, ys)} if validation else {}
    with pytest.raises(MonitorError) as err:
        model.train(xs, ys, epochs=5, callbacks=[es], verbose=0, **kw)
    text = clean(err.value)
    assert fix in text and "The figures at the end of epoch 1: loss" in text


def test_reduce_lr_on_plateau_on_a_missing_figure_is_refused_too() -> None:
    model = classifier()
    xs, ys = data()
    with pytest.raises(MonitorError, match=r"monitor='loss'"):
        model.train(xs, ys, callbacks=[twt.ReduceLROnPlateau()], verbose=0)
