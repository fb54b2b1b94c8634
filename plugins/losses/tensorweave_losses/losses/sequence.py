"""Sequence cross-entropy over padded batches (perplexity, its exponential, is in
``tensorweave_losses.metrics.perplexity``).

Token ids ``[batch, time]`` are scored against logits ``[batch, time, vocab]``; a ``mask``
(``[batch, time]``, 1 for real tokens) or ``lengths`` (``[batch]``) leaves padding out, and
the ``"mean"`` reduction averages over real tokens only. Called on layers with neither, the
logits' ``padding_mask`` is the mask (a model whose ids went through
``Lookup(..., mask_zero=True)`` needs no wiring).

>>> import tensorflow as tf
>>> from tensorweave_losses.losses.sequence import sequence_cross_entropy
>>> logits = tf.zeros([1, 3, 4])  # uniform over 4 words
>>> round(float(sequence_cross_entropy([[1, 2, 0]], logits, lengths=[2])), 4)  # log 4
1.3863
>>> import tensorweave as tw
>>> ids = tw.Input(batch_shape=(None, None), dtype=tf.int64, name="ids")
>>> scores = tw.layers["Lookup.v1"](ids, vocab_size=4, n_units=4, w_init="zeros", mask_zero=True)
>>> loss = sequence_cross_entropy(ids, scores)       # the padding mask of the scores
>>> loss.inputs[-1] is scores.padding_mask, round(float(loss([[1, 2, 0]])), 4)
(True, 1.3863)
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_losses.base import (
    check_class_ids,
    check_reduction,
    check_shapes,
    float_tensor,
    warn_if_probabilities,
    weights_like,
)
from tensorweave_losses.nodes import graph_function, padding_aware

__all__ = ["sequence_cross_entropy", "token_losses"]


def token_losses(
    name: str,
    ids: Any,
    logits: Any,
    mask: Any = None,
    lengths: Any = None,
    label_smoothing: float = 0.0,
    sample_weight: Any = None,
) -> tuple[tf.Tensor, tf.Tensor]:
    """Per-token losses ``[batch, time]`` (zero at padding) and token weights (mask × weight)."""
    logits = float_tensor(logits)
    ids = tf.convert_to_tensor(ids)
    if logits.shape.rank is not None and logits.shape.rank != 3:
        raise tw.ShapeError(
            f"{name}: logits must be [batch, time, vocab], got shape {tuple(logits.shape)}. "
            "Fix: for one prediction per example use sparse_categorical_cross_entropy.v1."
        )
    check_shapes(
        name,
        ids,
        logits,
        "ids must be [batch, time] for logits [batch, time, vocab].",
        drop_last=True,
    )
    if mask is not None and lengths is not None:
        raise ValueError(f"{name}: pass mask= or lengths=, not both.")
    ids = check_class_ids(name, ids, logits.shape[-1])
    warn_if_probabilities(name, logits)
    if label_smoothing:
        depth = logits.shape[-1] if logits.shape[-1] is not None else tf.shape(logits)[-1]
        labels = tf.one_hot(ids, depth, dtype=logits.dtype)
        labels = labels * (1.0 - label_smoothing) + label_smoothing / tf.cast(depth, logits.dtype)
        losses = tf.nn.softmax_cross_entropy_with_logits(labels, logits)
    else:
        losses = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=ids, logits=logits)
    if lengths is not None:
        weights = tf.sequence_mask(lengths, maxlen=tf.shape(ids)[1], dtype=logits.dtype)
    elif mask is not None:
        weights = tf.cast(tf.convert_to_tensor(mask), logits.dtype)
        check_shapes(name, weights, losses, "mask must be [batch, time] like the ids.")
    else:
        weights = tf.ones_like(losses)
    if sample_weight is not None:
        weights = weights * weights_like(name, sample_weight, losses)
    return losses * weights, weights


@padding_aware
@graph_function
def sequence_cross_entropy(
    ids: Any,
    logits: Any,
    *,
    mask: Any = None,
    lengths: Any = None,
    label_smoothing: float = 0.0,
    sample_weight: Any = None,
    reduction: str = "mean",
) -> tf.Tensor:
    """Token cross-entropy of padded sequences.

    Args:
        ids: target token ids ``[batch, time]`` in ``[0, vocab)``.
        logits: scores ``[batch, time, vocab]``.
        mask: ``[batch, time]``, nonzero for real tokens (or use ``lengths``); on layers,
            default: the logits' ``padding_mask``.
        lengths: ``[batch]`` sequence lengths.
        label_smoothing: mix targets with the uniform distribution.
        sample_weight: per sequence ``[batch]`` or per token ``[batch, time]``.
        reduction: ``"mean"`` (over weighted real tokens), ``"sum"``, or ``"none"`` (the
            masked per-token losses ``[batch, time]``).
    """
    name = "sequence_cross_entropy"
    check_reduction(name, reduction)
    losses, weights = token_losses(name, ids, logits, mask, lengths, label_smoothing, sample_weight)
    if reduction == "none":
        return losses
    if reduction == "sum":
        return tf.reduce_sum(losses)
    return tf.math.divide_no_nan(tf.reduce_sum(losses), tf.reduce_sum(weights))
