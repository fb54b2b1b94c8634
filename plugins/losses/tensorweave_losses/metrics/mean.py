"""The (weighted) mean of values, and its streaming state.

>>> from tensorweave_losses.metrics.mean import StreamingMean
>>> metric = StreamingMean()
>>> _ = metric.update([1.0, 2.0]); _ = metric.update([6.0])
>>> float(metric.result())
3.0
>>> metric.reset(); float(metric.result())
0.0
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

from tensorweave_losses.nodes import graph_function
from tensorweave_losses.streaming.accumulators import StreamingMetric, mean_parts, ratio
from tensorweave_losses.streaming.states import made, streams

__all__ = ["mean", "StreamingMean"]


@graph_function
def mean(values: Any, *, sample_weight: Any = None) -> tf.Tensor:
    """The (weighted) mean of ``values``; 0 when the weights sum to 0.

    >>> float(mean([1.0, 2.0, 6.0], sample_weight=[1.0, 1.0, 0.0]))
    1.5
    """
    return ratio(*mean_parts(values, sample_weight=sample_weight))


class StreamingMean(StreamingMetric):
    """Running (weighted) mean: ``update(values, sample_weight=None)``."""

    def parts(self, values: Any, *, sample_weight: Any = None) -> Sequence[tf.Tensor]:
        return mean_parts(values, sample_weight=sample_weight)


streams(mean, made(StreamingMean))
