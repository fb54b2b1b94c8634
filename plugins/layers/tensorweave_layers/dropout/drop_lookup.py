"""``DropLookup``: embedding dropout that drops whole ids, per sample, from a lookup output.

On ``[batch, seq, dim]`` embeddings, each distinct id of a sample is dropped (its vectors
zeroed at every position where it occurs in that sample) with ``rate``; kept
vectors are scaled by ``1 / (1 - rate)`` unless ``scale=False``. Which positions hold
the same id comes from the optional ``ids`` input ``[batch, seq]``; without it, positions
whose embedding vectors are identical count as the same id (true for a lookup output).
At ``training=False`` (``reuse_with(x, training=False)``) it is the identity.

>>> import numpy as np, tensorflow as tf, tensorweave as tw
>>> emb = tw.Input(batch_shape=(None, None, 2), name="emb")
>>> ids = tw.Input(batch_shape=(None, None), dtype="int64", name="ids")
>>> drop = DropLookup(emb, ids, rate=0.5)
>>> vectors = np.ones((1, 6, 2), "float32")
>>> out = drop.compute(tf.constant(vectors), tf.constant([[3, 3, 3, 3, 3, 3]])).numpy()
>>> len(set(out.ravel().tolist()))            # all six positions share one fate
1
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner as name_owner
from tensorweave_layers._spatial import describe

__all__ = ["DropLookup"]


class DropLookup(tw.Layer):
    """Drop whole ids of each sample from embeddings ``[batch, seq, dim]``.

    Args:
        x: the lookup output, ``[batch, seq, dim]``.
        ids: optional integer ids ``[batch, seq]`` that produced ``x``.
        rate: the chance of dropping each distinct id of a sample, in ``[0, 1)``.
        training: drop (``True``) or pass through (``False``).
        scale: scale kept vectors by ``1 / (1 - rate)``.
    """

    def __init__(
        self,
        x: tw.Layer,
        ids: tw.Layer | None = None,
        *,
        rate: float = 0.1,
        training: bool = True,
        scale: bool = True,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        owner = name_owner("DropLookup", name)
        if x.sparse or len(x.shape) != 3:
            raise tw.ShapeError(
                f"{owner} expects a dense lookup output [batch, seq, dim], got {describe(x)}"
                f". Fix: apply it to the output of a Lookup "
                "layer; use Dropout.v1 for other inputs."
            )
        if ids is not None:
            if ids.sparse or len(ids.shape) != 2 or not ids.dtype.is_integer:
                raise tw.ShapeError(
                    f"{owner}: ids must be dense integers [batch, seq], got {describe(ids)} "
                    f"{ids.dtype.name}. Fix: pass the ids that were looked up."
                )
            if x.shape[1] is not None and ids.shape[1] is not None and x.shape[1] != ids.shape[1]:
                raise tw.ShapeError(
                    f"{owner}: ids {describe(ids)} and embeddings {describe(x)} disagree on the "
                    "sequence length. Fix: pass the ids that produced these embeddings."
                )
        p = float(rate)
        if not 0.0 <= p < 1.0:
            raise ValueError(f"{owner}: rate must be in [0, 1), got {rate!r}.")
        self.rate = p
        self.training = bool(training)
        self.scale = bool(scale)
        inputs = (x,) if ids is None else (x, ids)
        super().__init__(
            *inputs, shape=x.shape, dtype=x.dtype, name=name, share_state_with=share_state_with
        )
        if self.training and p > 0.0:
            self.state.generator()  # the masks' random state, checkpointed

    def compute(self, x: Any, ids: Any = None) -> tf.Tensor:
        """Zero the vectors of the dropped ids of each sample."""
        if not self.training or self.rate == 0.0:
            return tf.identity(x)
        if ids is not None:
            same = tf.equal(ids[:, :, None], ids[:, None, :])  # [batch, seq, seq]
        else:
            same = tf.reduce_all(tf.equal(x[:, :, None, :], x[:, None, :, :]), axis=-1)
        first = tf.argmax(tf.cast(same, tf.int32), axis=-1, output_type=tf.int32)
        keep = self.state.generator().uniform(tf.shape(x)[:2]) >= self.rate  # per position
        keep = tf.gather(keep, first, batch_dims=1)  # every position takes its id's first draw
        mask = tf.cast(keep, x.dtype)
        if self.scale:
            mask = mask / tf.constant(1.0 - self.rate, x.dtype)
        return x * mask[:, :, None]

    def reuse_with(  # type: ignore[override]  # explicit per-use options
        self,
        *inputs: tw.Layer,
        training: bool | None = None,
        rate: float | None = None,
        scale: bool | None = None,
        name: str | None = None,
    ) -> DropLookup:
        """The same dropout on new inputs (``x`` and optionally ``ids``)."""
        if not 1 <= len(inputs) <= 2:
            raise TypeError(
                f"DropLookup {self.name!r}.reuse_with takes x and optionally ids, got "
                f"{len(inputs)} inputs."
            )
        return DropLookup(
            *inputs,
            rate=self.rate if rate is None else rate,
            training=self.training if training is None else training,
            scale=self.scale if scale is None else scale,
            name=name,
            share_state_with=self,
        )
