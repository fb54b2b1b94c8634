"""Keras's ``output_mode``: integer indices as they are, or one-hot, multi-hot or count
vectors of ``depth`` entries (as ``keras.layers.CategoryEncoding``).

>>> import tensorflow as tf
>>> encode(tf.constant([[1, 1, 3]]), "count", 4, tf.float32).numpy().tolist()
[[0.0, 2.0, 0.0, 1.0]]
>>> encoded_shape((None, 1), "one_hot", 4)
(None, 4)
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw

__all__ = ["MODES", "check_mode", "encode", "encoded_shape"]

MODES = ("int", "one_hot", "multi_hot", "count")


def check_mode(mode: str, owner: str, modes: tuple[str, ...] = MODES) -> str:
    """``mode`` if it is one of ``modes``, else a ``tw.ArgumentError`` naming them."""
    if mode not in modes:
        raise tw.ArgumentError(
            f"{owner}: output_mode must be one of {', '.join(map(repr, modes))}, got {mode!r}."
        )
    return mode


def encoded_shape(shape: tuple[int | None, ...], mode: str, depth: int) -> tuple[int | None, ...]:
    """The output shape of ``encode`` for an input of ``shape`` (batch first)."""
    if mode == "int":
        return shape
    if mode == "one_hot":
        body = shape[:-1] if len(shape) > 1 and shape[-1] == 1 else shape
        return (*body, depth)
    return (shape[0], depth) if len(shape) >= 1 else (depth,)


def encode(indices: Any, mode: str, depth: int, dtype: tf.DType) -> tf.Tensor:
    """Encode integer ``indices`` (rank 1 or 2, batch first) as Keras does."""
    if mode == "int":
        return indices
    if mode == "one_hot":
        if indices.shape.rank > 1 and indices.shape[-1] == 1:
            indices = tf.squeeze(indices, -1)
        return tf.one_hot(indices, depth, dtype=dtype)
    if indices.shape.rank == 1:
        indices = indices[:, None]
    hot = tf.one_hot(indices, depth, dtype=dtype)
    if mode == "multi_hot":
        return tf.reduce_max(hot, axis=-2)
    return tf.reduce_sum(hot, axis=-2)
