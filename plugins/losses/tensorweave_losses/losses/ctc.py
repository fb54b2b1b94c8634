"""Connectionist temporal classification (CTC, Graves et al., 2006): the loss of a label
sequence against per-frame class scores when the alignment of labels to frames is unknown
(speech, handwriting, OCR).

The loss is ``-log`` of the total probability of every alignment of the labels to the
frames, a blank class separating repeats; it comes from ``tf.nn.ctc_loss``.

>>> import tensorflow as tf
>>> from tensorweave_losses.losses.ctc import ctc
>>> logits = tf.math.log([[[0.1, 0.9], [0.1, 0.9]]])  # two frames, blank 0 or class 1
>>> round(float(ctc([[1]], logits)), 4)  # alignments 1 1, 0 1, 1 0: -log(0.81 + 2 * 0.09)
0.0101
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
    reduce_loss,
)
from tensorweave_losses.nodes import graph_function

__all__ = ["ctc"]


def _check_ranks(labels: tf.Tensor, logits: tf.Tensor) -> None:
    if labels.shape.rank not in (None, 2) or logits.shape.rank not in (None, 3):
        raise tw.ShapeError(
            f"ctc: labels must be [batch, max_label_length] and logits [batch, frames, "
            f"num_classes], got {tuple(labels.shape)} and {tuple(logits.shape)}. Fix: pad the "
            "label sequences to one length (with the blank id) and give one score vector per "
            "frame."
        )
    check_shapes(
        "ctc",
        labels[:, :1] if labels.shape.rank == 2 else labels,
        logits[:, :1, 0] if logits.shape.rank == 3 else logits,
        "labels and logits need the same batch size.",
    )


@graph_function
def ctc(
    labels: Any,
    logits: Any,
    *,
    label_length: Any = None,
    logit_length: Any = None,
    mask: Any = None,
    blank_index: int = 0,
    sample_weight: Any = None,
    reduction: str = "mean",
) -> tf.Tensor:
    """CTC loss of padded label sequences against per-frame logits, as ``keras.losses.CTC``.

    Args:
        labels: class ids ``[batch, max_label_length]``, padded after each sequence with the
            blank id (or -1); a sequence never holds the blank.
        logits: unnormalised scores ``[batch, frames, num_classes]`` (the blank included).
        label_length: ``[batch]`` label lengths; by default the number of entries that are
            neither the blank nor negative.
        logit_length: ``[batch]`` frame counts; by default every frame (or the ``mask``'s).
        mask: ``[batch, frames]``, nonzero for real frames (instead of ``logit_length``).
        blank_index: the blank class (Keras uses 0; ``-1`` is the last class).
        sample_weight: weights per example.
        reduction: ``"mean"``, ``"sum"`` or ``"none"`` (the ``[batch]`` losses).

    >>> import tensorflow as tf
    >>> logits = tf.zeros([2, 4, 3])  # uniform scores over blank, 1 and 2
    >>> ctc([[1, 2], [2, 0]], logits, reduction="none").shape  # the second label is [2]
    TensorShape([2])
    """
    name = "ctc"
    check_reduction(name, reduction)
    logits = float_tensor(logits)
    labels = tf.convert_to_tensor(labels)
    if labels.dtype.is_floating:
        labels = tf.cast(labels, tf.int64)
    _check_ranks(labels, logits)
    if mask is not None and logit_length is not None:
        raise tw.ArgumentError(f"{name}: pass mask= or logit_length=, not both.")
    blank = tf.math.floormod(
        tf.cast(blank_index, labels.dtype), tf.cast(tf.shape(logits)[-1], labels.dtype)
    )
    real = tf.logical_and(tf.not_equal(labels, blank), labels >= 0)
    labels = check_class_ids(name, tf.where(labels >= 0, labels, blank), logits.shape[-1])
    if label_length is None:
        label_length = tf.reduce_sum(tf.cast(real, tf.int32), axis=-1)
    batch, frames = tf.shape(logits)[0], tf.shape(logits)[1]
    if mask is not None:
        logit_length = tf.reduce_sum(tf.cast(tf.not_equal(mask, 0), tf.int32), axis=-1)
    elif logit_length is None:
        logit_length = tf.fill([batch], frames)
    losses = tf.nn.ctc_loss(
        labels=tf.cast(labels, tf.int32),
        logits=logits,
        label_length=tf.cast(label_length, tf.int32),
        logit_length=tf.cast(logit_length, tf.int32),
        logits_time_major=False,
        blank_index=blank_index,
    )
    return reduce_loss(name, losses, sample_weight, reduction)
