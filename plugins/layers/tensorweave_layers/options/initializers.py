"""Initializers: plain functions ``(shape, dtype) -> tf.Tensor``, registered by name.

Each one draws a fresh value with ``tf.random.*`` ops every time it is called, so two
layers never start with the same weights, and ``tf.random.set_seed`` makes a run
reproducible. Options (``value=``, ``stddev=``, ``gain=``…) are keywords with defaults;
bind them with ``functools.partial`` to pass a configured initializer to a layer.
Registered in ``tw.initializers`` as ``"zeros.v1"``, ``"glorot_uniform.v1"``…

>>> import tensorflow as tf
>>> w = glorot_uniform((4, 3), tf.float32)
>>> w.shape.as_list(), bool(tf.reduce_all(tf.abs(w) <= (6 / 7) ** 0.5))
([4, 3], True)
>>> identity((2, 3)).numpy().tolist()
[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import tensorflow as tf

__all__ = [
    "fans",
    "zeros",
    "ones",
    "constant",
    "uniform",
    "normal",
    "glorot_uniform",
    "glorot_normal",
    "he_uniform",
    "he_normal",
    "orthogonal",
    "identity",
    "truncated_normal",
    "lecun_normal",
    "lecun_uniform",
    "variance_scaling",
]

# stddev of a standard normal truncated to [-2, 2], to keep the variance of truncated draws
_TRUNCATED_STD = 0.87962566103423978

ShapeArg = Sequence[int]


def fans(shape: ShapeArg) -> tuple[float, float]:
    """``(fan_in, fan_out)`` of a weight shape; leading dims of conv kernels are the field.

    >>> fans((3, 4)), fans((2, 2, 3, 8))
    ((3.0, 4.0), (12.0, 32.0))
    """
    shape = tuple(int(d) for d in shape)
    if not shape:
        return 1.0, 1.0
    if len(shape) == 1:
        return float(shape[0]), float(shape[0])
    field = math.prod(shape[:-2])
    return float(shape[-2] * field), float(shape[-1] * field)


def _shape(shape: ShapeArg) -> list[int]:
    return [int(d) for d in shape]


def _float(dtype: tf.DType | str, name: str) -> tf.DType:
    dtype = tf.as_dtype(dtype)
    if not dtype.is_floating:
        raise TypeError(
            f"initializer {name!r} draws random floats and cannot make {dtype.name} values. "
            "Fix: use a float dtype, or zeros/ones/constant for integer variables."
        )
    return dtype


def zeros(shape: ShapeArg, dtype: tf.DType | str = tf.float32) -> tf.Tensor:
    """All zeros (the usual bias initializer)."""
    return tf.zeros(_shape(shape), dtype=dtype)


def ones(shape: ShapeArg, dtype: tf.DType | str = tf.float32) -> tf.Tensor:
    """All ones (the usual scale initializer)."""
    return tf.ones(_shape(shape), dtype=dtype)


def constant(shape: ShapeArg, dtype: tf.DType | str = tf.float32, value: float = 0.0) -> tf.Tensor:
    """Every entry equal to ``value``."""
    return tf.fill(_shape(shape), tf.cast(value, dtype))


def uniform(
    shape: ShapeArg,
    dtype: tf.DType | str = tf.float32,
    minval: float = -0.05,
    maxval: float = 0.05,
) -> tf.Tensor:
    """Uniform in ``[minval, maxval)``."""
    return tf.random.uniform(_shape(shape), minval, maxval, dtype=_float(dtype, "uniform"))


def normal(
    shape: ShapeArg, dtype: tf.DType | str = tf.float32, mean: float = 0.0, stddev: float = 0.05
) -> tf.Tensor:
    """Normal with ``mean`` and ``stddev``."""
    return tf.random.normal(_shape(shape), mean, stddev, dtype=_float(dtype, "normal"))


def truncated_normal(
    shape: ShapeArg, dtype: tf.DType | str = tf.float32, mean: float = 0.0, stddev: float = 0.05
) -> tf.Tensor:
    """Normal with ``mean`` and ``stddev``, redrawn beyond two ``stddev`` (Keras's
    ``TruncatedNormal``)."""
    return tf.random.truncated_normal(
        _shape(shape), mean, stddev, dtype=_float(dtype, "truncated_normal")
    )


_MODES = ("fan_in", "fan_out", "fan_avg")
_DISTRIBUTIONS = ("truncated_normal", "untruncated_normal", "uniform")


def _variance_scaling(
    shape: ShapeArg, dtype: tf.DType | str, scale: float, mode: str, distribution: str, name: str
) -> tf.Tensor:
    if mode not in _MODES or distribution not in _DISTRIBUTIONS or not scale > 0:
        raise ValueError(
            f"{name}: needs scale > 0, mode in {_MODES} and distribution in {_DISTRIBUTIONS}; "
            f"got scale={scale!r}, mode={mode!r}, distribution={distribution!r}."
        )
    fan_in, fan_out = fans(shape)
    fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[mode]
    variance = scale / max(1.0, fan)
    dims, dtype = _shape(shape), _float(dtype, name)
    if distribution == "uniform":
        limit = math.sqrt(3.0 * variance)
        return tf.random.uniform(dims, -limit, limit, dtype=dtype)
    if distribution == "truncated_normal":  # the stddev after truncation at 2 stddev
        return tf.random.truncated_normal(dims, 0.0, math.sqrt(variance) / _TRUNCATED_STD, dtype)
    return tf.random.normal(dims, 0.0, math.sqrt(variance), dtype=dtype)


def variance_scaling(
    shape: ShapeArg,
    dtype: tf.DType | str = tf.float32,
    scale: float = 1.0,
    mode: str = "fan_in",
    distribution: str = "truncated_normal",
) -> tf.Tensor:
    """Values of variance ``scale / fan`` (``fan`` by ``mode``: ``fan_in``, ``fan_out`` or
    their mean ``fan_avg``), drawn from ``distribution`` (``truncated_normal``,
    ``untruncated_normal`` or ``uniform``), as Keras's ``VarianceScaling``; the Glorot, He
    and LeCun initializers are its special cases.

    >>> import tensorflow as tf
    >>> w = variance_scaling((300, 200), scale=2.0, distribution="uniform")
    >>> bool(tf.reduce_max(tf.abs(w)) <= (3 * 2.0 / 300) ** 0.5)
    True
    """
    return _variance_scaling(shape, dtype, scale, mode, distribution, "variance_scaling")


def glorot_uniform(shape: ShapeArg, dtype: tf.DType | str = tf.float32) -> tf.Tensor:
    """Uniform in ``±sqrt(6 / (fan_in + fan_out))`` (Glorot & Bengio, 2010)."""
    return _variance_scaling(shape, dtype, 1.0, "fan_avg", "uniform", "glorot_uniform")


def glorot_normal(shape: ShapeArg, dtype: tf.DType | str = tf.float32) -> tf.Tensor:
    """Truncated normal with variance ``2 / (fan_in + fan_out)``."""
    return _variance_scaling(shape, dtype, 1.0, "fan_avg", "truncated_normal", "glorot_normal")


def he_uniform(shape: ShapeArg, dtype: tf.DType | str = tf.float32) -> tf.Tensor:
    """Uniform in ``±sqrt(6 / fan_in)`` (He et al., 2015), for ReLU layers."""
    return _variance_scaling(shape, dtype, 2.0, "fan_in", "uniform", "he_uniform")


def he_normal(shape: ShapeArg, dtype: tf.DType | str = tf.float32) -> tf.Tensor:
    """Truncated normal with variance ``2 / fan_in``."""
    return _variance_scaling(shape, dtype, 2.0, "fan_in", "truncated_normal", "he_normal")


def lecun_uniform(shape: ShapeArg, dtype: tf.DType | str = tf.float32) -> tf.Tensor:
    """Uniform in ``±sqrt(3 / fan_in)`` (LeCun et al., 1998), for SELU layers."""
    return _variance_scaling(shape, dtype, 1.0, "fan_in", "uniform", "lecun_uniform")


def lecun_normal(shape: ShapeArg, dtype: tf.DType | str = tf.float32) -> tf.Tensor:
    """Truncated normal with variance ``1 / fan_in`` (self-normalizing nets with SELU)."""
    return _variance_scaling(shape, dtype, 1.0, "fan_in", "truncated_normal", "lecun_normal")


def orthogonal(shape: ShapeArg, dtype: tf.DType | str = tf.float32, gain: float = 1.0) -> tf.Tensor:
    """A random (semi-)orthogonal matrix, times ``gain``; kernels are flattened to 2-D.

    >>> import numpy as np
    >>> q = orthogonal((3, 3))
    >>> np.allclose(q.numpy() @ q.numpy().T, np.eye(3), atol=1e-5)
    True
    """
    dtype = _float(dtype, "orthogonal")
    dims = _shape(shape)
    if len(dims) < 2:
        raise ValueError(f"orthogonal needs a shape of rank >= 2, got {tuple(dims)}.")
    rows, cols = math.prod(dims[:-1]), dims[-1]
    a = tf.random.normal([max(rows, cols), min(rows, cols)], dtype=dtype)
    q, r = tf.linalg.qr(a)
    q = q * tf.sign(tf.linalg.diag_part(r))  # a uniform (Haar) draw, not QR's sign bias
    if rows < cols:
        q = tf.transpose(q)
    return tf.reshape(gain * q, dims)


def identity(shape: ShapeArg, dtype: tf.DType | str = tf.float32, gain: float = 1.0) -> tf.Tensor:
    """``gain`` times the identity matrix (rectangular shapes get ones on the diagonal)."""
    dims = _shape(shape)
    if len(dims) != 2:
        raise ValueError(f"identity needs a 2-D shape, got {tuple(dims)}.")
    return tf.constant(gain * np.eye(dims[0], dims[1]), dtype=dtype)
