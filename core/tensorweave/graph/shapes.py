"""Shapes of layer outputs: ``Shape``, ``ShapeLike`` and ``normalize_shape``.

A layer knows its output shape at construction, as a tuple of dimensions, batch first,
``None`` where a dimension is dynamic (the batch, a sequence's length). ``normalize_shape``
turns any shape-like value (a list, a tuple, a ``tf.TensorShape``) into that tuple.

>>> normalize_shape([None, 3])
(None, 3)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

import tensorflow as tf

from tensorweave.errors import ArgumentError, ShapeError

__all__ = ["Shape", "ShapeLike", "normalize_shape"]

Shape: TypeAlias = tuple[int | None, ...]
ShapeLike: TypeAlias = Sequence[int | None] | tf.TensorShape


def normalize_shape(shape: ShapeLike) -> Shape:
    """Turn a shape-like value into a tuple of ``int | None``.

    >>> import tensorflow as tf
    >>> normalize_shape(tf.TensorShape([None, 3]))
    (None, 3)
    """
    if isinstance(shape, tf.TensorShape):
        if shape.rank is None:
            raise ShapeError("a layer's shape must have a known rank, got an unknown-rank shape")
        return tuple(shape.as_list())
    if isinstance(shape, (str, bytes)) or not hasattr(shape, "__iter__"):
        raise ArgumentError(
            f"a layer's shape must be a tuple of dimensions, batch first, got {shape!r}. "
            "Fix: e.g. shape=(None, 8)."
        )
    return tuple(None if d is None else int(d) for d in shape)
