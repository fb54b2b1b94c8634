"""Whole-sequence exact match: the share of sequences whose every real token is right, the
figure of translation-like tasks (a date rewritten with one wrong digit is wrong).

Labels are token ids ``[batch, time]``; predictions are scores ``[batch, time, vocab]``
(their argmax is the predicted id) or ids ``[batch, time]`` (a greedy decoder's output).
Padding is left out: positions whose label is ``ignore_class`` (0, the padding id, by
default) and positions a ``mask`` (or ``lengths``) marks as padding. Called on layers with
neither, the scores' ``padding_mask`` is the mask, as for ``sequence_cross_entropy.v1``.
Keras has no counterpart (its accuracies count tokens, not whole sequences).

>>> from tensorweave_losses.metrics.exact_match import sequence_exact_match
>>> labels = [[5, 6, 2, 0], [5, 7, 2, 0]]
>>> float(sequence_exact_match(labels, [[5, 6, 2, 9], [5, 6, 2, 0]]))  # padding not compared
0.5
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_losses.base import check_shapes, weights_like
from tensorweave_losses.nodes import graph_function, padding_aware
from tensorweave_losses.streaming.accumulators import StreamingMetric, ratio
from tensorweave_losses.streaming.states import made, streams

__all__ = [
    "sequence_exact_match",
    "sequence_exact_match_parts",
    "StreamingSequenceExactMatch",
]


def sequence_exact_match_parts(
    labels: Any,
    predictions: Any,
    *,
    mask: Any = None,
    lengths: Any = None,
    ignore_class: int | None = 0,
    sample_weight: Any = None,
) -> tuple[tf.Tensor, tf.Tensor]:
    """(weighted whole-sequence hits, total weight): what a streaming exact match sums."""
    name = "sequence_exact_match"
    labels = tf.convert_to_tensor(labels)
    predictions = tf.convert_to_tensor(predictions)
    if labels.shape.rank is not None and labels.shape.rank != 2:
        raise tw.ShapeError(
            f"{name}: labels must be token ids [batch, time], got shape {tuple(labels.shape)}. "
            "Fix: for one class per example use sparse_accuracy.v1."
        )
    if predictions.dtype.is_floating:
        check_shapes(
            name, labels, predictions, "scores must be [batch, time, vocab].", drop_last=True
        )
        predictions = tf.argmax(predictions, axis=-1)
    else:
        check_shapes(name, labels, predictions, "predicted ids must be [batch, time].")
    if mask is not None and lengths is not None:
        raise tw.ArgumentError(f"{name}: pass mask= or lengths=, not both.")
    labels = tf.cast(labels, tf.int64)
    kept = tf.ones(tf.shape(labels), tf.bool)
    if ignore_class is not None:
        kept = tf.not_equal(labels, ignore_class)
    if lengths is not None:
        kept = kept & tf.sequence_mask(lengths, maxlen=tf.shape(labels)[1])
    elif mask is not None:
        kept = kept & tf.cast(tf.convert_to_tensor(mask), tf.bool)
    wrong = kept & tf.not_equal(labels, tf.cast(predictions, tf.int64))
    hits = tf.cast(tf.logical_not(tf.reduce_any(wrong, axis=1)), tf.float32)
    if sample_weight is None:
        return tf.reduce_sum(hits), tf.cast(tf.size(hits), tf.float32)
    w = tf.broadcast_to(weights_like(name, sample_weight, hits), tf.shape(hits))
    return tf.reduce_sum(hits * w), tf.reduce_sum(w)


@padding_aware
@graph_function
def sequence_exact_match(
    labels: Any,
    predictions: Any,
    *,
    mask: Any = None,
    lengths: Any = None,
    ignore_class: int | None = 0,
    sample_weight: Any = None,
) -> tf.Tensor:
    """The share of sequences predicted exactly (every real token right).

    Args:
        labels: target token ids ``[batch, time]``.
        predictions: scores ``[batch, time, vocab]`` (argmax taken) or ids ``[batch, time]``.
        mask: ``[batch, time]``, nonzero for real tokens (or use ``lengths``); on layers,
            default: the scores' ``padding_mask``.
        lengths: ``[batch]`` sequence lengths.
        ignore_class: the label id that marks padding, never compared (``None``: compare
            every position the mask keeps).
        sample_weight: one weight per sequence ``[batch]``.
    """
    return ratio(
        *sequence_exact_match_parts(
            labels,
            predictions,
            mask=mask,
            lengths=lengths,
            ignore_class=ignore_class,
            sample_weight=sample_weight,
        )
    )


class StreamingSequenceExactMatch(StreamingMetric):
    """``sequence_exact_match`` over every batch since the last reset."""

    def __init__(self, ignore_class: int | None = 0, *, name: str | None = None) -> None:
        super().__init__(name=name)
        self.ignore_class = ignore_class

    def parts(
        self,
        labels: Any,
        predictions: Any,
        *,
        mask: Any = None,
        lengths: Any = None,
        sample_weight: Any = None,
    ) -> Sequence[tf.Tensor]:
        return sequence_exact_match_parts(
            labels,
            predictions,
            mask=mask,
            lengths=lengths,
            ignore_class=self.ignore_class,
            sample_weight=sample_weight,
        )


streams(sequence_exact_match, made(StreamingSequenceExactMatch, "ignore_class"))
