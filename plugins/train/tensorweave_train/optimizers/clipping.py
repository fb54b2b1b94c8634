"""Gradient clipping that keeps ``tf.IndexedSlices`` sparse.

>>> import tensorflow as tf
>>> g = clip_gradients([tf.constant([3.0, 4.0])], clip_global_norm=1.0)
>>> [round(x, 3) for x in g[0].numpy().tolist()]
[0.6, 0.8]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeAlias

import tensorflow as tf

__all__ = ["Gradient", "clip_gradients"]

Gradient: TypeAlias = tf.Tensor | tf.IndexedSlices


def clip_gradients(
    grads: Sequence[Gradient | None],
    *,
    clip_value: float | None = None,
    clip_norm: float | None = None,
    clip_global_norm: float | None = None,
) -> list[Gradient | None]:
    """Clip gradients by value, by each one's norm, then by their global norm.

    ``tf.IndexedSlices`` stay sparse (their values are clipped).

    >>> import tensorflow as tf
    >>> g = clip_gradients([tf.constant([3.0, 4.0])], clip_global_norm=1.0)
    >>> [round(x, 3) for x in g[0].numpy().tolist()]
    [0.6, 0.8]
    """
    out = list(grads)
    if clip_value is not None:
        out = [_map_values(g, lambda t: tf.clip_by_value(t, -clip_value, clip_value)) for g in out]
    if clip_norm is not None:
        out = [None if g is None else tf.clip_by_norm(g, clip_norm) for g in out]
    if clip_global_norm is not None:
        present = [i for i, g in enumerate(out) if g is not None]
        clipped, _ = tf.clip_by_global_norm([out[i] for i in present], clip_global_norm)
        for i, g in zip(present, clipped):
            out[i] = g
    return out


def _map_values(g: Gradient | None, fn: Callable[[tf.Tensor], tf.Tensor]) -> Gradient | None:
    if g is None:
        return None
    if isinstance(g, tf.IndexedSlices):
        return tf.IndexedSlices(fn(g.values), g.indices, g.dense_shape)
    return fn(g)
