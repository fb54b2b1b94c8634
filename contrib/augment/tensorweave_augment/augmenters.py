"""Two augmenters: ``AugmentJitter.v1`` (Gaussian noise) and ``AugmentScale.v1`` (a random
gain per sample).

Each is a class: its options are the constructor's (what a config block gives), and an
instance is called with the batch and the random generator of the layer that applies it.

>>> import tensorflow as tf
>>> rng = tf.random.Generator.from_seed(0)
>>> x = tf.ones([2, 3])
>>> Jitter(stddev=0.0)(x, rng).numpy().tolist()
[[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
>>> y = Scale(low=2.0, high=2.0)(x, rng)
>>> y.numpy().tolist()
[[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw

__all__ = ["Jitter", "Scale"]


class Jitter:
    """Add Gaussian noise of standard deviation ``stddev`` to every entry.

    Args:
        stddev: the noise's standard deviation (``>= 0``).
    """

    def __init__(self, stddev: float = 0.1) -> None:
        if not stddev >= 0.0:
            raise tw.ArgumentError(f"AugmentJitter: stddev must be >= 0, got {stddev!r}.")
        self.stddev = float(stddev)

    def __call__(self, x: Any, rng: tf.random.Generator) -> tf.Tensor:
        """``x + N(0, stddev)`` entry by entry."""
        x = tf.convert_to_tensor(x)
        return x + rng.normal(tf.shape(x), stddev=self.stddev, dtype=x.dtype)

    def __repr__(self) -> str:
        return f"Jitter(stddev={self.stddev})"


class Scale:
    """Multiply each sample by its own factor drawn uniformly from ``[low, high]``.

    Args:
        low: the smallest factor.
        high: the largest factor (``>= low``).
    """

    def __init__(self, low: float = 0.9, high: float = 1.1) -> None:
        if not low <= high:
            raise tw.ArgumentError(f"AugmentScale: low must be <= high, got {low!r} > {high!r}.")
        self.low, self.high = float(low), float(high)

    def __call__(self, x: Any, rng: tf.random.Generator) -> tf.Tensor:
        """``x * factor``, one factor per sample (the first axis)."""
        x = tf.convert_to_tensor(x)
        shape = tf.concat([tf.shape(x)[:1], tf.ones([tf.rank(x) - 1], tf.int32)], axis=0)
        factor = rng.uniform(shape, minval=self.low, maxval=self.high, dtype=x.dtype)
        return x * factor

    def __repr__(self) -> str:
        return f"Scale(low={self.low}, high={self.high})"
