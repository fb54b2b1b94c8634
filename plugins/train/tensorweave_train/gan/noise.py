"""``LatentNoise``: a GAN's latent draws as a graph node, reproducible and resumable.

The node takes a batch (the real images) for its size only and draws standard normal noise
of ``shape`` per example from its state's ``tf.random.Generator`` (``LayerState.generator``):
seeded from ``tf.random.set_seed``, saved by checkpoints, so a run killed and resumed draws
what an uninterrupted one would. Every use draws anew (a GAN's discriminator and generator
steps see different noise). The inference node (``training=False``, what ``evaluate`` and
validation run) draws the same noise each time from ``seed`` instead, without moving the
generator: its figures are comparable from epoch to epoch and do not change training.

>>> import numpy as np, tensorflow as tf, tensorweave as tw
>>> real = tw.Input(n_units=4, name="real")
>>> z = LatentNoise(real, shape=(3,))
>>> z.shape, z.compute(tf.zeros([5, 4])).shape
((None, 3), TensorShape([5, 3]))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw

__all__ = ["LatentNoise"]


class LatentNoise(tw.Layer):
    """Standard normal draws shaped ``(batch of x, *shape)``.

    Args:
        x: any layer whose first axis is the batch (its values are not read).
        shape: the shape of one draw (the latent input of a generator, without the batch).
        dtype: the dtype of the draws.
        training: draw from the state's generator (``True``), or the same noise every
            time from ``seed`` (``False``: the inference node).
        seed: the seed of the inference node's draws.
    """

    def __init__(
        self,
        x: tw.Layer,
        *,
        shape: Sequence[int],
        dtype: tf.DType | str = tf.float32,
        training: bool = True,
        seed: int = 0,
        name: str | None = None,
        share_state_with: LatentNoise | None = None,
    ) -> None:
        self.draw_shape = tuple(tw.positive_int(d, "shape", "LatentNoise") for d in shape)
        self.training, self.seed = bool(training), int(seed)
        super().__init__(
            x,
            shape=(None, *self.draw_shape),
            dtype=dtype,
            name=name,
            share_state_with=share_state_with,
        )

    def init_state(self) -> None:
        self.state.generator()  # made now, so checkpoints hold it before the first draw

    def compute(self, x: Any) -> tf.Tensor:
        batch = tf.shape(x)[:1]
        size = tf.concat([batch, tf.constant(self.draw_shape, tf.int32)], axis=0)
        if not self.training:
            return tf.random.stateless_normal(size, seed=[self.seed, 0], dtype=self.dtype)
        return self.state.generator().normal(size, dtype=self.dtype)
