"""Initial values for part-B layers' variables (conv, norm, attention, DropConnect).

An initializer is a registered function ``(shape, dtype) -> tensor`` (``tw.initializers``,
e.g. ``"glorot_uniform.v1"``) or any such callable. When the named initializer is not
installed, a small built-in ``tf.random`` version is used, so these layers never depend on
another module of the pack being importable. Values come from ``tf.random`` ops at variable
creation (seeded globally by ``tf.random.set_seed``), never from a shared Keras instance,
so two layers always start with different weights.

>>> w = initial_value("glorot_uniform", (3, 3, 2, 4), tf.float32)
>>> w.shape.as_list()
[3, 3, 2, 4]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

import tensorflow as tf

import tensorweave as tw

__all__ = ["Initializer", "initial_value", "fans"]

Initializer: TypeAlias = str | Callable[[Sequence[int], tf.DType], Any]


def fans(shape: Sequence[int]) -> tuple[float, float]:
    """``(fan_in, fan_out)`` of a weight shape; leading dims of conv kernels are the field.

    >>> fans((3, 3, 2, 4))
    (18.0, 36.0)
    """
    if len(shape) == 0:
        return 1.0, 1.0
    if len(shape) == 1:
        return float(shape[0]), float(shape[0])
    field = math.prod(shape[:-2]) if len(shape) > 2 else 1
    return float(shape[-2] * field), float(shape[-1] * field)


def _glorot_uniform(shape: Sequence[int], dtype: tf.DType) -> tf.Tensor:
    fan_in, fan_out = fans(shape)
    limit = math.sqrt(6.0 / (fan_in + fan_out))
    return tf.random.uniform(shape, -limit, limit, dtype=dtype)


def _zeros(shape: Sequence[int], dtype: tf.DType) -> tf.Tensor:
    return tf.zeros(shape, dtype=dtype)


def _ones(shape: Sequence[int], dtype: tf.DType) -> tf.Tensor:
    return tf.ones(shape, dtype=dtype)


_FALLBACK: dict[str, Callable[[Sequence[int], tf.DType], tf.Tensor]] = {
    "glorot_uniform": _glorot_uniform,
    "zeros": _zeros,
    "ones": _ones,
}


def _resolve(init: Initializer) -> Callable[[Sequence[int], tf.DType], Any]:
    if callable(init):
        return init
    if not isinstance(init, str):
        raise TypeError(
            f"an initializer must be a registered name or a function (shape, dtype) -> tensor, "
            f"got {type(init).__name__}."
        )
    try:
        found = tw.initializers.get(init, None)
    except tw.RegistryError:  # a provider failed to load or names clash: use the built-in
        found = None
    if found is not None:
        return found
    base = init.rsplit(".v", 1)[0]
    if base in _FALLBACK:
        return _FALLBACK[base]
    raise tw.UnknownComponentError(
        f"no initializer {init!r}: it is not registered (tw.initializers) and has no built-in "
        f"fallback ({sorted(_FALLBACK)}). Fix: install a pack that registers it, or pass a "
        "function (shape, dtype) -> tensor."
    )


def initial_value(init: Initializer, shape: Sequence[int], dtype: tf.DType | str) -> tf.Tensor:
    """A fresh initial value of ``shape`` from ``init`` (a name or a callable)."""
    dtype = tf.as_dtype(dtype)
    value = tf.convert_to_tensor(_resolve(init)(tuple(int(d) for d in shape), dtype), dtype=dtype)
    if value.shape.as_list() != list(shape):
        raise tw.ShapeError(
            f"initializer {init!r} returned shape {value.shape.as_list()} for {list(shape)}."
        )
    return value
