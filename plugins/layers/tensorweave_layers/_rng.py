"""The random state of a stochastic layer: a ``tf.random.Generator`` kept in its state.

Dropout masks drawn with ``tf.random.uniform`` come from op-level seeds whose position is
lost when a process dies, so a resumed run would redraw the masks of step 0. A generator
stored in the layer's ``state`` is a checkpointed variable (``tf.train.Checkpoint`` saves
its position), shared by every ``reuse_with`` of the layer, and it is seeded from the
global seed (``tf.random.set_seed``), so two runs with the same seed draw the same masks.

>>> tf.random.set_seed(1); a = generator(tw.LayerState("a")).uniform([2])
>>> tf.random.set_seed(1); b = generator(tw.LayerState("b")).uniform([2])
>>> bool(tf.reduce_all(a == b))
True
"""

from __future__ import annotations

import tensorflow as tf

import tensorweave as tw

__all__ = ["generator", "keep_mask"]


def generator(state: tw.LayerState) -> tf.random.Generator:
    """``state.rng``, created on first need (seeded from ``tf.random``'s global seed)."""
    rng = getattr(state, "rng", None)
    if rng is None:
        with tf.init_scope():  # a variable: made eagerly, even when asked during tracing
            seed = tf.random.uniform([], maxval=2**31 - 1, dtype=tf.int64)
            rng = tf.random.Generator.from_seed(int(seed))
        state.rng = rng
    return rng


def keep_mask(rng: tf.random.Generator, shape: tf.Tensor, probability: float) -> tf.Tensor:
    """A boolean mask of ``shape``, ``True`` with chance ``1 - probability``."""
    return rng.uniform(shape, dtype=tf.float32) >= probability
