"""What every loss, metric and distance here shares: checks of labels and predictions, and
reductions.

>>> import tensorflow as tf
>>> from tensorweave_losses.base import reduce_loss
>>> float(reduce_loss("demo", tf.constant([1.0, 3.0]), sample_weight=[1.0, 0.0]))
0.5
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw

__all__ = [
    "REDUCTIONS",
    "LossValueError",
    "ProbabilitiesAsLogitsWarning",
    "reduce_loss",
    "check_reduction",
    "check_shapes",
    "align_labels",
    "is_eager_value",
    "float_tensor",
    "weights_like",
    "check_class_ids",
    "check_probabilities",
    "warn_if_probabilities",
    "per_example",
    "paired",
    "ONE_HOT_FIX",
]

REDUCTIONS = ("mean", "sum", "none")
EPSILON = 1e-7


class LossValueError(tw.TensorweaveError, ValueError):
    """A loss or metric got values it cannot use: labels out of range, probabilities
    outside ``[0, 1]``, an unknown reduction."""


class ProbabilitiesAsLogitsWarning(UserWarning):
    """Predictions passed as logits look like probabilities (rows in [0, 1] summing to 1)."""


# -- checks -------------------------------------------------------------------------------
def is_eager_value(value: Any) -> bool:
    """Whether ``value`` holds concrete data now (so data checks are cheap and possible)."""
    if isinstance(value, (np.ndarray, list, tuple, float, int)):
        return True
    return tf.executing_eagerly() and hasattr(value, "numpy")


def float_tensor(value: Any, dtype: tf.DType | None = None) -> tf.Tensor:
    """``value`` as a floating tensor (float32 unless it already is floating)."""
    tensor = tf.convert_to_tensor(value) if dtype is None else tf.convert_to_tensor(value, dtype)
    if not tensor.dtype.is_floating:
        tensor = tf.cast(tensor, tf.float32 if dtype is None else dtype)
    return tensor


def check_reduction(loss: str, reduction: str) -> None:
    """Raise ``LossValueError`` unless ``reduction`` is one of ``REDUCTIONS``."""
    if reduction not in REDUCTIONS:
        raise LossValueError(
            f"{loss}: unknown reduction {reduction!r}. Fix: use one of {', '.join(REDUCTIONS)}."
        )


def _shape(t: Any) -> tuple[int | None, ...] | None:
    shape = t.shape
    return None if shape.rank is None else tuple(shape.as_list())


def check_shapes(
    loss: str, labels: Any, predictions: Any, fix: str, *, drop_last: bool = False
) -> None:
    """Raise ``tw.ShapeError`` when the static shapes of labels and predictions disagree.

    ``drop_last`` compares the labels with the predictions without their last axis (class
    ids against class scores). Unknown dimensions are not compared.
    """
    ls, ps = _shape(labels), _shape(predictions)
    if ls is None or ps is None:
        return
    want = ps[:-1] if drop_last else ps
    ok = len(ls) == len(want) and all(
        a is None or b is None or a == b for a, b in zip(ls, want, strict=True)
    )
    if not ok:
        what = "predictions without the class axis" if drop_last else "predictions"
        raise tw.ShapeError(
            f"{loss}: labels of shape {ls} do not fit predictions of shape {ps} "
            f"(labels must have the shape of the {what}, {want}). Fix: {fix}"
        )


def align_labels(labels: tf.Tensor, predictions: tf.Tensor) -> tf.Tensor:
    """Drop or add a trailing axis of size 1 so labels ``[b]`` fit predictions ``[b, 1]``."""
    lr, pr = labels.shape.rank, predictions.shape.rank
    if lr is None or pr is None:
        return labels
    if lr == pr + 1 and labels.shape[-1] == 1:
        return tf.squeeze(labels, -1)
    if lr + 1 == pr and predictions.shape[-1] == 1:
        return tf.expand_dims(labels, -1)
    return labels


def warn_if_probabilities(loss: str, logits: Any, axis: int = -1) -> None:
    """Warn when eager ``logits`` have every row in [0, 1] summing to 1 (probabilities)."""
    if not is_eager_value(logits):
        return
    x = np.asarray(logits)
    if x.ndim == 0 or x.size == 0 or x.shape[axis] < 2:
        return
    if x.min() >= 0.0 and x.max() <= 1.0 and np.allclose(x.sum(axis=axis), 1.0, atol=1e-4):
        warnings.warn(
            f"{loss}: from_logits=True, but the predictions of shape {x.shape} look like "
            "probabilities (every row in [0, 1] sums to 1). Fix: pass the scores before "
            "softmax, or from_logits=False if these are probabilities.",
            ProbabilitiesAsLogitsWarning,
            stacklevel=3,
        )


def check_probabilities(loss: str, probabilities: Any) -> None:
    """Raise ``LossValueError`` when eager probabilities fall outside [0, 1] (logits?)."""
    if not is_eager_value(probabilities):
        return
    x = np.asarray(probabilities)
    if x.size and (np.nanmin(x) < -1e-4 or np.nanmax(x) > 1.0 + 1e-4):  # round-off is fine
        raise LossValueError(
            f"{loss}: from_logits=False, but the predictions of shape {x.shape} range over "
            f"[{np.nanmin(x):.4g}, {np.nanmax(x):.4g}], outside [0, 1], so they are not "
            "probabilities. Fix: pass from_logits=True for raw scores (logits)."
        )


def check_class_ids(loss: str, labels: tf.Tensor, num_classes: int | None) -> tf.Tensor:
    """Check integer class ids lie in ``[0, num_classes)``: eagerly by value, else by assert ops.

    Returns the labels (with the asserts attached as control dependencies in graphs).
    """
    if not labels.dtype.is_integer:
        raise tw.InputValueError(
            f"{loss}: labels must be integer class ids, got {labels.dtype.name}. Fix: "
            "tf.cast(labels, tf.int64), or use the dense (one-hot) variant of this loss."
        )
    if num_classes is None:
        return labels
    if is_eager_value(labels):
        x = np.asarray(labels)
        if x.size and (x.min() < 0 or x.max() >= num_classes):
            bad = x[(x < 0) | (x >= num_classes)]
            raise LossValueError(
                f"{loss}: labels must be class ids in [0, {num_classes}) for predictions with "
                f"{num_classes} classes, got {bad[:5].tolist()} (shape {x.shape}). Fix: check the "
                "label encoding (1-based ids? padding id?) or the number of classes."
            )
        return labels
    # One Assert op whose data is only a string: ``tf.debugging.assert_*`` wrap each check
    # in a ``cond`` (an ``If`` op, two per loss) so that they can print the offending values,
    # which costs more than the rest of the check in every training step.
    message = (
        f"{loss}: labels must be class ids in [0, {num_classes}); got an id outside that range. "
        "Fix: check the label encoding (1-based ids? padding id?) or the number of classes."
    )
    in_range = tf.logical_and(
        tf.greater_equal(labels, tf.zeros([], labels.dtype)),
        tf.less(labels, tf.cast(num_classes, labels.dtype)),
    )
    check = tf.debugging.Assert(tf.reduce_all(in_range), [message])
    with tf.control_dependencies([check]):
        return tf.identity(labels)


# -- shared preparation -------------------------------------------------------------------
ONE_HOT_FIX = (
    "one-hot labels need the predictions' shape; for class ids use tf.one_hot(ids, "
    "num_classes) first."
)


def paired(name: str, labels: Any, predictions: Any, fix: str) -> tuple[tf.Tensor, tf.Tensor]:
    """(labels, predictions) as floats of one shape: labels ``[batch]`` fit predictions
    ``[batch, 1]``; shapes that do not fit raise ``tw.ShapeError`` naming ``name``."""
    predictions = float_tensor(predictions)
    labels = align_labels(tf.cast(tf.convert_to_tensor(labels), predictions.dtype), predictions)
    check_shapes(name, labels, predictions, fix)
    return labels, predictions


def per_example(elements: tf.Tensor, axis: int = -1) -> tf.Tensor:
    """The mean over ``axis`` when ``elements`` have rank >= 2 (one example per row, as
    Keras), else ``elements`` (rank 1: one output per example)."""
    if elements.shape.rank is not None and elements.shape.rank >= 2:
        return tf.reduce_mean(elements, axis=axis)
    return elements


# -- reduction ----------------------------------------------------------------------------
def weights_like(loss: str, weights: Any, losses: tf.Tensor) -> tf.Tensor:
    w = tf.cast(tf.convert_to_tensor(weights), losses.dtype)
    lr, wr = losses.shape.rank, w.shape.rank
    if lr is not None and wr is not None:
        if wr == lr + 1 and w.shape[-1] == 1:
            w = tf.squeeze(w, -1)
            wr -= 1
        while 0 < wr < lr:
            w = tf.expand_dims(w, -1)
            wr += 1
        ws, ls = w.shape.as_list(), losses.shape.as_list()
        if wr > lr or any(
            a is not None and b is not None and a != b and a != 1
            for a, b in zip(ws, ls, strict=False)
        ):
            raise tw.ShapeError(
                f"{loss}: sample_weight of shape {tuple(weights.shape if hasattr(weights, 'shape') else np.shape(weights))} "
                f"does not fit the per-example losses of shape {tuple(ls)}. Fix: pass one "
                "weight per example ([batch]) or one per loss element."
            )
    return w


def reduce_loss(
    loss: str, losses: tf.Tensor, sample_weight: Any = None, reduction: str = "mean"
) -> tf.Tensor:
    """Weight the per-example ``losses`` and reduce them.

    ``"mean"`` divides the weighted sum by the number of elements (Keras'
    ``sum_over_batch_size``, so all-zero weights give 0, not NaN); ``"sum"`` sums; ``"none"``
    returns the weighted per-example losses.
    """
    check_reduction(loss, reduction)
    if sample_weight is not None:
        losses = losses * weights_like(loss, sample_weight, losses)
    if reduction == "none":
        return losses
    total = tf.reduce_sum(losses)
    if reduction == "sum":
        return total
    return tf.math.divide_no_nan(total, tf.cast(tf.size(losses), losses.dtype))
