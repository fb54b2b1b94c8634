"""``Transpose``: permute the axes of a layer, the batch axis included if asked.

``perm`` has two forms:

- a permutation of *all* axes ``0..rank-1`` (as ``tf.transpose`` and ``tw.ops.transpose``
  take): the batch axis may move, and the output shape follows the permutation, with
  ``None`` where the batch axis lands. ``Transpose(x, (1, 0))`` on ``(None, 3)`` gives
  ``(3, None)``: the whole matrix transposed;
- a permutation of the non-batch axes ``1..rank-1`` (the batch axis stays first):
  ``Transpose(x, (2, 1))`` turns ``(None, 3, 4)`` into ``(None, 4, 3)``.

By default the non-batch axes are reversed. On a rank-2 input that would do nothing, so
``Transpose(x)`` refuses it and asks for an explicit ``perm`` (never a silent no-op).

>>> import numpy as np, tensorweave as tw
>>> from tensorweave_layers.reshape.transpose import Transpose
>>> x = tw.Input(shape=(2, 3), name="x", value=np.arange(6.0).reshape(1, 2, 3))
>>> y = Transpose(x)
>>> y.shape, y().numpy().tolist()
((None, 3, 2), [[[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]])
>>> m = tw.Input(n_units=3, name="m", value=[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
>>> t = Transpose(m, (1, 0))
>>> t.shape, t().numpy().tolist()
((3, None), [[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import describe, owner, require_dense

__all__ = ["Transpose"]


def full_permutation(perm: Sequence[int] | None, rank: int, who: str, what: str) -> tuple[int, ...]:
    """The permutation of all ``rank`` axes that ``perm`` means (see the module docstring).

    >>> full_permutation((2, 1), 3, "Transpose", "x"), full_permutation((1, 0), 2, "T", "x")
    ((0, 2, 1), (1, 0))
    """
    if perm is None:
        if rank == 2:
            raise ValueError(
                f"{who}: input {what} has one non-batch axis, so the default perm (reverse the "
                "non-batch axes) would return it unchanged.\n  Fix: pass perm=(1, 0) to "
                "transpose the whole matrix, batch axis included (as tw.ops.transpose does)."
            )
        return (0, *range(rank - 1, 0, -1))
    axes = tuple(int(p) for p in perm)
    if sorted(axes) == list(range(rank)):
        return axes
    if sorted(axes) == list(range(1, rank)):
        return (0, *axes)
    raise ValueError(
        f"{who}: perm={perm!r} is neither a permutation of all axes {tuple(range(rank))} nor "
        f"of the non-batch axes {tuple(range(1, rank))} of input {what}.\n  Fix: list each "
        "axis once: all of them to move the batch axis too, or 1..rank-1 to keep it first."
    )


class Transpose(tw.Layer):
    """``tf.transpose(x, perm)`` with ``perm`` over all axes, or over ``1..rank-1``.

    Args:
        x: the input layer (dense, rank >= 2).
        perm: a permutation of ``0..rank-1`` (the batch axis may move) or of
            ``1..rank-1`` (the batch axis stays first); default: reverse the non-batch
            axes (rank >= 3 only).
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
        if rank < 2:
            raise tw.ShapeError(
                f"{who}: input {describe(x)} has rank {rank}; Transpose needs rank >= 2.\n"
                "  Fix: Reshape it first, e.g. Reshape(x, (1,))."
            )
        self.perm = full_permutation(perm, rank, who, describe(x))
        super().__init__(
            x,
            shape=tuple(x.shape[p] for p in self.perm),
            dtype=x.dtype,
            name=name,
            share_state_with=share_state_with,
        )

    def compute(self, x: Any) -> tf.Tensor:
        """The transposed tensor."""
        return tf.transpose(x, self.perm)
