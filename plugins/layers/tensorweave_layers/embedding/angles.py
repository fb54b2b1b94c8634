"""What the position layers share: the input check and the sinusoid angles.

``angles(steps, n, width)`` is ``position * 1 / max_wavelength ** (2 i / width)`` for the
positions ``0..steps-1`` and ``i < n`` (the Transformer's frequencies, from 1 down to
``1 / max_wavelength``): ``SinusoidalPositionEmbedding`` takes the sine and cosine of
them, ``RotaryEmbedding`` rotates pairs of units by them.

>>> import tensorflow as tf
>>> angles(3, 2, 4, max_wavelength=100.0).numpy().tolist()
[[0.0, 0.0], [1.0, 0.10000000149011612], [2.0, 0.20000000298023224]]
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import describe

__all__ = ["angles", "check_positions_input"]


def angles(
    steps: Any,
    n: Any,
    width: Any,
    *,
    max_wavelength: float,
    scaling_factor: float = 1.0,
    dtype: tf.DType = tf.float32,
) -> tf.Tensor:
    """``[steps, n]``: ``(position / scaling_factor) / max_wavelength ** (2 i / width)``."""
    positions = tf.range(steps, dtype=tf.float32) / scaling_factor
    exponent = 2.0 * tf.range(n, dtype=tf.float32) / tf.cast(width, tf.float32)
    inverse = 1.0 / tf.pow(tf.constant(max_wavelength, tf.float32), exponent)
    return tf.cast(positions[:, None] * inverse[None, :], dtype)


def check_positions_input(x: tw.Layer, who: str, *, min_rank: int = 3, even: bool = False) -> int:
    """The width of ``x``, a dense sequence ``[batch, time, ..., width]``."""
    width = x.shape[-1] if len(x.shape) >= min_rank else None
    if x.sparse or width is None or (even and width % 2):
        what = "an even" if even else "a known"
        raise tw.ShapeError(
            f"{who}: input {describe(x)} must be a dense sequence [batch, time, "
            f"{'..., ' if min_rank == 3 and not even else ''}width] of rank >= {min_rank} with "
            f"{what} width. Fix: embed the ids first (Lookup), and give the width a size"
            f"{' divisible by 2' if even else ''}."
        )
    if not x.dtype.is_floating:
        raise TypeError(f"{who}: input {describe(x)} must be floating, got {x.dtype.name}.")
    return int(width)
