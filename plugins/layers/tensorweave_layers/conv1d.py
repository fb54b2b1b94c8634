"""``Conv1D``: 1-d convolution over sequences ``[batch, time, channels]``.

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(batch_shape=(None, None, 3), name="x")
>>> conv = Conv1D(x, n_units=4, kernel_size=3, strides=2, activation="relu")
>>> conv.shape
(None, None, 4)
>>> conv.compute(tf.ones((2, 5, 3))).shape.as_list()
[2, 3, 4]
>>> causal = Conv1D(x, n_units=4, kernel_size=3, padding="causal")  # step t sees <= t
>>> causal.compute(tf.ones((2, 5, 3))).shape.as_list()
[2, 5, 4]
"""

from __future__ import annotations

from typing import ClassVar

from ._conv import Conv

__all__ = ["Conv1D"]


class Conv1D(Conv):
    """1-d convolution; see ``Conv`` for the options (``n_units`` filters, ``kernel_size``,
    ``groups``, ``padding="causal"``…)."""

    spatial_rank: ClassVar[int] = 1
    paddings: ClassVar[tuple[str, ...]] = ("same", "valid", "causal")
