"""Weight initial values made with ``tf.random`` (seeded by ``tf.random.set_seed``).

Every call draws fresh values, so two cells never share initial weights (a shared Keras
initializer instance would give identical ones).

>>> import numpy as np, tensorflow as tf
>>> w = orthogonal([3, 6])
>>> np.allclose(w.numpy() @ w.numpy().T, np.eye(3), atol=1e-5)
True
>>> float(tf.reduce_max(tf.abs(glorot_uniform([4, 8])))) <= (6 / 12) ** 0.5
True
"""

from __future__ import annotations

from collections.abc import Sequence

import tensorflow as tf

__all__ = ["glorot_uniform", "orthogonal"]


def glorot_uniform(shape: Sequence[int], dtype: tf.DType = tf.float32) -> tf.Tensor:
    """Uniform in ``±sqrt(6 / (fan_in + fan_out))`` for a ``[fan_in, fan_out]`` matrix."""
    fan_in, fan_out = int(shape[0]), int(shape[-1])
    limit = (6.0 / max(1, fan_in + fan_out)) ** 0.5
    return tf.random.uniform(list(shape), -limit, limit, dtype=dtype)


def orthogonal(shape: Sequence[int], gain: float = 1.0, dtype: tf.DType = tf.float32) -> tf.Tensor:
    """A (semi-)orthogonal ``[rows, cols]`` matrix: orthonormal rows or columns, whichever
    are fewer (as Keras' ``Orthogonal`` for the ``[n, k * n]`` recurrent kernels)."""
    rows, cols = int(shape[0]), int(shape[1])
    flat = tf.random.normal([max(rows, cols), min(rows, cols)], dtype=dtype)
    q, r = tf.linalg.qr(flat)
    q = q * tf.sign(tf.linalg.diag_part(r))
    if rows < cols:
        q = tf.transpose(q)
    return gain * q
