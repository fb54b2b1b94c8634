"""Kullback-Leibler divergence between label distributions and predicted distributions.

>>> from tensorweave_losses.losses.divergence import kl_divergence
>>> float(kl_divergence([[0.5, 0.5]], [[0.5, 0.5]]))
0.0
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tensorweave_losses.base import (
    EPSILON,
    check_probabilities,
    check_reduction,
    check_shapes,
    float_tensor,
    reduce_loss,
    warn_if_probabilities,
)
from tensorweave_losses.nodes import graph_function

__all__ = ["kl_divergence"]


@graph_function
def kl_divergence(
    labels: Any,
    predictions: Any,
    *,
    from_logits: bool = False,
    axis: int = -1,
    sample_weight: Any = None,
    reduction: str = "mean",
) -> tf.Tensor:
    """``KL(labels || predictions) = sum(labels * log(labels / predictions))`` per example.

    Args:
        labels: target distributions (clipped to ``[1e-7, 1]`` as in Keras).
        predictions: predicted distributions (clipped likewise; eager values outside [0, 1]
            raise ``LossValueError``), or logits with ``from_logits=True`` (then computed
            with a stable ``log_softmax``).
        axis: the distribution axis.
        sample_weight: weights per example.
        reduction: ``"mean"``, ``"sum"`` or ``"none"``.
    """
    name = "kl_divergence"
    check_reduction(name, reduction)
    predictions = float_tensor(predictions)
    labels = tf.cast(tf.convert_to_tensor(labels), predictions.dtype)
    check_shapes(name, labels, predictions, "labels must be distributions shaped like predictions.")
    labels = tf.clip_by_value(labels, EPSILON, 1.0)
    if from_logits:
        warn_if_probabilities(name, predictions, axis)
        log_p = tf.nn.log_softmax(predictions, axis=axis)
    else:
        check_probabilities(name, predictions)
        log_p = tf.math.log(tf.clip_by_value(predictions, EPSILON, 1.0))
    losses = tf.reduce_sum(labels * (tf.math.log(labels) - log_p), axis=axis)
    return reduce_loss(name, losses, sample_weight, reduction)
