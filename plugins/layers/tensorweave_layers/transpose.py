"""``Transpose``: permute the axes of each example (the batch axis stays first).

``perm`` lists the non-batch axes in their new order, numbered from 1 as in the full
shape; by default they are reversed. ``Transpose(x, (2, 1))`` turns ``(None, 3, 4)``
into ``(None, 4, 3)``.

>>> x = tw.Input(shape=(None, 2, 3), name="x", value=np.arange(6.0).reshape(1, 2, 3))
>>> y = Transpose(x)
>>> y.shape, y().numpy().tolist()
((None, 3, 2), [[[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import describe, owner, require_dense

__all__ = ["Transpose"]


class Transpose(tw.Layer):
    """``tf.transpose(x, (0, *perm))``.

    Args:
        x: the input layer (dense, rank >= 2).
        perm: a permutation of ``1..rank-1`` (default: reversed).
        name, share_state_with: see ``tw.Layer`` (no variables).
    """

    def __init__(
        self,
        x: tw.Layer,
        perm: Sequence[int] | None = None,
        *,
        name: str | None = None,
        share_state_with: Transpose | None = None,
    ) -> None:
        who = owner("Transpose", name)
        require_dense(x, who)
        rank = len(x.shape)
        axes = tuple(range(rank - 1, 0, -1)) if perm is None else tuple(int(p) for p in perm)
        if sorted(axes) != list(range(1, rank)):
            raise ValueError(
                f"{who}: perm={perm!r} is not a permutation of the non-batch axes "
                f"{tuple(range(1, rank))} of input {describe(x)}.\n  Fix: list each of them "
                "once; the batch axis 0 stays first."
            )
        full = (0, *axes)
        self._perm = full
        super().__init__(
            x,
            shape=tuple(x.shape[p] for p in full),
            dtype=x.dtype,
            name=name,
            share_state_with=share_state_with,
        )

    def compute(self, x: Any) -> tf.Tensor:
        """The transposed tensor."""
        return tf.transpose(x, self._perm)
