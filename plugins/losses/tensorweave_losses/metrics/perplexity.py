"""Perplexity ``exp(mean token cross-entropy)`` of padded sequences, and its streaming state.

>>> import tensorflow as tf
>>> from tensorweave_losses.metrics.perplexity import perplexity
>>> logits = tf.zeros([1, 3, 4])  # uniform over 4 words
>>> round(float(perplexity([[1, 2, 0]], logits, lengths=[2])), 4)
4.0
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

from tensorweave_losses.losses.sequence import token_losses
from tensorweave_losses.nodes import graph_function, padding_aware
from tensorweave_losses.streaming.accumulators import StreamingMetric
from tensorweave_losses.streaming.states import made, streams

__all__ = ["perplexity", "perplexity_parts", "perplexity_result", "StreamingPerplexity"]


def perplexity_parts(
    ids: Any, logits: Any, *, mask: Any = None, lengths: Any = None, sample_weight: Any = None
) -> tuple[tf.Tensor, tf.Tensor]:
    """(summed token cross-entropy, token count): what a streaming perplexity accumulates."""
    losses, weights = token_losses("perplexity", ids, logits, mask, lengths, 0.0, sample_weight)
    return tf.reduce_sum(losses), tf.reduce_sum(weights)


def perplexity_result(total: tf.Tensor, count: tf.Tensor) -> tf.Tensor:
    """``exp(total / count)`` (1 when there are no tokens)."""
    return tf.exp(tf.math.divide_no_nan(total, count))


@padding_aware
@graph_function
def perplexity(
    ids: Any, logits: Any, *, mask: Any = None, lengths: Any = None, sample_weight: Any = None
) -> tf.Tensor:
    """Perplexity ``exp(mean token cross-entropy)`` of padded sequences (arguments as in
    ``sequence_cross_entropy``)."""
    return perplexity_result(
        *perplexity_parts(ids, logits, mask=mask, lengths=lengths, sample_weight=sample_weight)
    )


class StreamingPerplexity(StreamingMetric):
    """Running perplexity: ``update(ids, logits, mask=None, lengths=None, sample_weight=None)``."""

    def parts(self, ids: Any, logits: Any, **kwargs: Any) -> Sequence[tf.Tensor]:
        return perplexity_parts(ids, logits, **kwargs)

    def finish(self, *totals: tf.Tensor) -> tf.Tensor:
        return perplexity_result(*totals)


streams(perplexity, made(StreamingPerplexity))
