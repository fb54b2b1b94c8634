"""``Dot``: the dot product of two layers along one axis each, sample by sample (Keras's
``Dot``).

``axes`` picks the axis of each input (an int for both, or a pair; not the batch axis);
the output keeps the first input's other axes, then the second's (Keras's
``batch_dot``), and two ``[batch, n]`` inputs give ``[batch, 1]``. ``normalize=True``
L2-normalises both inputs along those axes first, so the result is the cosine similarity.

>>> import tensorweave as tw
>>> a = tw.Input(n_units=2, name="a", value=[[3.0, 4.0]])
>>> b = tw.Input(n_units=2, name="b", value=[[4.0, 3.0]])
>>> Dot(a, b, axes=1)().numpy().tolist(), Dot(a, b, axes=1, normalize=True)().numpy().astype(float).round(2).tolist()
([[24.0]], [[0.96]])
>>> q, k = tw.Input(shape=(5, 3)), tw.Input(shape=(7, 3))
>>> Dot(q, k, axes=2).shape   # every step of q against every step of k
(None, 5, 7)
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import describe, owner, require_dense

__all__ = ["Dot"]

_EPSILON = 1e-7  # Keras's backend epsilon, the floor of a normalised vector's norm


def _l2_normalize(x: tf.Tensor, axis: int) -> tf.Tensor:
    """``x / max(||x||, epsilon)`` along ``axis``, as Keras's ``normalize``."""
    inverse = tf.math.rsqrt(tf.reduce_sum(tf.square(x), axis=axis, keepdims=True))
    return x * tf.minimum(inverse, tf.constant(1.0 / _EPSILON, x.dtype))


class Dot(tw.Layer):
    """``sum(x1 * x2)`` along ``axes``, for each sample.

    Args:
        x1, x2: dense layers of rank >= 2.
        axes: the axis of both inputs (an int, negative counts from the end) or one per
            input; the batch axis cannot be one.
        normalize: L2-normalise both inputs along ``axes`` first (cosine similarity).
        name, share_state_with: see ``tw.Layer`` (no variables).
    """

    def __init__(
        self,
        x1: tw.Layer,
        x2: tw.Layer,
        *,
        axes: int | Sequence[int] = -1,
        normalize: bool = False,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        who = owner("Dot", name)
        for layer in (x1, x2):
            require_dense(layer, who)
            if len(layer.shape) < 2:
                raise tw.ShapeError(
                    f"{who}: input {describe(layer)} has no axis besides the batch. Fix: "
                    "Reshape it to [batch, n]."
                )
        pair = (axes, axes) if isinstance(axes, int) else tuple(axes)
        if len(pair) != 2 or not all(isinstance(a, int) and not isinstance(a, bool) for a in pair):
            raise tw.ArgumentError(f"{who}: axes must be an int or two ints, got {axes!r}.")
        self.axes = tuple(a % len(t.shape) for a, t in zip(pair, (x1, x2), strict=True))
        if 0 in self.axes:
            raise tw.ArgumentError(
                f"{who}: axes={axes!r} include the batch axis. Fix: pick axes >= 1 (or "
                "negative ones, counted from the end)."
            )
        n1, n2 = x1.shape[self.axes[0]], x2.shape[self.axes[1]]
        if n1 is not None and n2 is not None and n1 != n2:
            raise tw.ShapeError(
                f"{who}: axis {self.axes[0]} of {describe(x1)} ({n1}) and axis {self.axes[1]} "
                f"of {describe(x2)} ({n2}) differ. Fix: pick axes of the same size."
            )
        if x1.dtype != x2.dtype:
            raise TypeError(f"{who}: inputs have different dtypes. Fix: cast them to one dtype.")
        self.normalize = bool(normalize)
        self._equation = _equation(len(x1.shape), len(x2.shape), self.axes)
        rest1 = [d for i, d in enumerate(x1.shape) if i != self.axes[0]]
        rest2 = [d for i, d in enumerate(x2.shape[1:], 1) if i != self.axes[1]]
        shape = (*rest1, *rest2) if len(rest1) + len(rest2) > 1 else (rest1[0], 1)
        super().__init__(
            x1, x2, shape=shape, dtype=x1.dtype, name=name, share_state_with=share_state_with
        )

    def compute(self, x1: Any, x2: Any) -> tf.Tensor:
        """The batched dot product."""
        if self.normalize:
            x1, x2 = _l2_normalize(x1, self.axes[0]), _l2_normalize(x2, self.axes[1])
        out = tf.einsum(self._equation, x1, x2)
        return out[:, None] if out.shape.rank == 1 else out


def _equation(rank1: int, rank2: int, axes: tuple[int, ...]) -> str:
    """The einsum of a batched dot product: ``"bij,bkj->bik"`` for ranks 3, 3, axes 2, 2."""
    letters = iter(string.ascii_lowercase[2:])
    a = ["a"] + [next(letters) for _ in range(rank1 - 1)]
    b = ["a"] + [next(letters) for _ in range(rank2 - 1)]
    a[axes[0]] = b[axes[1]] = "b"
    out = [c for c in a if c != "b"] + [c for c in b[1:] if c != "b"]
    return f"{''.join(a)},{''.join(b)}->{''.join(out)}"
