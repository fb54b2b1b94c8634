"""The F-beta score: the weighted harmonic mean of precision and recall, recall counting
``beta`` times as much as precision, per class and averaged (as ``keras.metrics.FBetaScore``).

It accumulates per-class true positives, false positives, false negatives and supports, so a
figure over many batches equals the figure over all of them at once. With ``beta=1``,
``average="micro"`` and a threshold it is ``f1.v1``.

>>> from tensorweave_losses.metrics.fbeta import fbeta
>>> labels, scores = [1, 1, 1, 1], [0.9, 0.8, 0.2, 0.1]  # tp=2 fp=0 fn=2: P=1, R=0.5
>>> round(float(fbeta(labels, scores, beta=1.0)), 4), round(float(fbeta(labels, scores, beta=2.0)), 4)
(0.6667, 0.5556)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_losses.base import paired, weights_like
from tensorweave_losses.nodes import graph_function
from tensorweave_losses.streaming.accumulators import StreamingMetric, ratio
from tensorweave_losses.streaming.states import Shapes, last_axis, streams

__all__ = ["fbeta", "fbeta_parts", "fbeta_result", "AVERAGES", "StreamingFBeta"]

#: how the per-class scores are combined (``None``: one score per class)
AVERAGES = ("micro", "macro", "weighted", None)


def check_fbeta(beta: float, average: str | None) -> None:
    """Refuse a ``beta`` that is not > 0 and an unknown ``average``."""
    if not float(beta) > 0.0:
        raise tw.ArgumentError(f"fbeta: beta must be > 0, got {beta!r}. Fix: beta=1.0 is F1.")
    if average not in AVERAGES:
        raise tw.ArgumentError(
            f"fbeta: unknown average {average!r}. Fix: one of 'micro', 'macro', 'weighted' "
            "or None (one score per class)."
        )


def fbeta_parts(
    labels: Any, predictions: Any, *, threshold: float | None = 0.5, sample_weight: Any = None
) -> tuple[tf.Tensor, tf.Tensor, tf.Tensor, tf.Tensor]:
    """Weighted per-class (tp, fp, fn, support) over the last axis (``[num_classes]``; one
    class for rank-1 inputs): labels > 0.5 are positive; a prediction is positive above
    ``threshold``, or, with ``threshold=None``, where it is its row's (nonzero) maximum."""
    labels, predictions = paired(
        "fbeta", labels, predictions, "give labels of the predictions' shape (one-hot rows)."
    )
    if labels.shape.rank == 1:
        labels, predictions = labels[:, None], predictions[:, None]
    if threshold is None:
        top = tf.reduce_max(predictions, axis=-1, keepdims=True)
        predicted = tf.logical_and(predictions >= top, tf.abs(predictions) > 1e-9)
    else:
        predicted = predictions > threshold
    p = tf.cast(predicted, tf.float32)
    y = tf.cast(labels > 0.5, tf.float32)
    if sample_weight is not None:
        w = tf.broadcast_to(weights_like("fbeta", sample_weight, y), tf.shape(y))
    else:
        w = tf.ones_like(y)
    classes = tf.shape(y)[-1]
    p, y, w = (tf.reshape(t, [-1, classes]) for t in (p, y, w))
    tp = tf.reduce_sum(w * y * p, 0)
    return tp, tf.reduce_sum(w * p, 0) - tp, tf.reduce_sum(w * y, 0) - tp, tf.reduce_sum(w * y, 0)


def fbeta_result(
    tp: tf.Tensor,
    fp: tf.Tensor,
    fn: tf.Tensor,
    support: tf.Tensor,
    *,
    beta: float = 1.0,
    average: str | None = "micro",
) -> tf.Tensor:
    """``(1 + b²) tp / ((1 + b²) tp + b² fn + fp)`` per class (0 where there is no tp),
    combined by ``average``."""
    if average == "micro":
        tp, fp, fn = tf.reduce_sum(tp), tf.reduce_sum(fp), tf.reduce_sum(fn)
    b2 = float(beta) ** 2
    scores = ratio((1.0 + b2) * tp, (1.0 + b2) * tp + b2 * fn + fp)
    if average == "weighted":
        return ratio(tf.reduce_sum(scores * support), tf.reduce_sum(support))
    if average == "macro":
        return tf.reduce_mean(scores)
    return scores


@graph_function
def fbeta(
    labels: Any,
    predictions: Any,
    *,
    beta: float = 1.0,
    threshold: float | None = 0.5,
    average: str | None = "micro",
    sample_weight: Any = None,
) -> tf.Tensor:
    """F-beta score ``(1 + b²) P R / (b² P + R)`` of 0/1 (one-hot or multi-label) labels
    against scores, as ``keras.metrics.FBetaScore`` (whose defaults are ``average=None`` and
    ``threshold=None``).

    Args:
        labels: 0/1 labels ``[batch, num_classes]`` (or ``[batch]``: one class).
        predictions: scores of the labels' shape.
        beta: how many times recall counts as much as precision (> 0).
        threshold: scores above it are positive; ``None`` takes each row's top score.
        average: ``"micro"`` (pool every class's counts: one score), ``"macro"`` (mean of
            the per-class scores), ``"weighted"`` (weighted by each class's positives) or
            ``None`` (one score per class).
        sample_weight: weights per example.

    >>> one_hot = [[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]]
    >>> scores = [[0.9, 0.1], [0.6, 0.4], [0.2, 0.8]]  # class 0: P=1/2 R=1, class 1: P=1 R=1/2
    >>> [round(v, 4) for v in fbeta(one_hot, scores, threshold=None, average=None).numpy().tolist()]
    [0.6667, 0.6667]
    """
    check_fbeta(beta, average)
    parts = fbeta_parts(labels, predictions, threshold=threshold, sample_weight=sample_weight)
    return fbeta_result(*parts, beta=beta, average=average)


class StreamingFBeta(StreamingMetric):
    """Running ``fbeta`` over ``num_classes`` classes (accumulates per-class counts; pooled
    ones for ``average="micro"``, which needs no ``num_classes``)."""

    def __init__(
        self,
        num_classes: int = 1,
        beta: float = 1.0,
        threshold: float | None = 0.5,
        average: str | None = "micro",
        *,
        name: str | None = None,
    ) -> None:
        check_fbeta(beta, average)
        self.num_classes = tw.positive_int(num_classes, "num_classes", "fbeta")
        self.beta, self.threshold, self.average = beta, threshold, average
        super().__init__(name=name or "fbeta")

    def _shapes(self) -> Sequence[tuple[int, ...]]:
        return ((1 if self.average == "micro" else self.num_classes,),) * 4

    def parts(
        self, labels: Any, predictions: Any, *, sample_weight: Any = None
    ) -> Sequence[tf.Tensor]:
        parts = fbeta_parts(
            labels, predictions, threshold=self.threshold, sample_weight=sample_weight
        )
        if self.average == "micro":  # pooled over classes: one total each
            return [tf.reduce_sum(t, keepdims=True) for t in parts]
        return parts

    def finish(self, *totals: tf.Tensor) -> tf.Tensor:
        tp, fp, fn, support = totals
        return fbeta_result(tp, fp, fn, support, beta=self.beta, average=self.average)


def fbeta_state(opts: dict[str, Any], shapes: Shapes) -> StreamingMetric:
    """The streaming state of an ``fbeta`` node: one total per class unless micro-averaged."""
    micro = opts.get("average", "micro") == "micro"
    classes = 1 if micro else last_axis("fbeta", shapes, "class")
    return StreamingFBeta(classes, **opts)


streams(fbeta, (fbeta_state, ("beta", "threshold", "average")))
