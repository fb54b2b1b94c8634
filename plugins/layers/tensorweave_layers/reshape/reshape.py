"""``Reshape``: give each example a new shape, checked at construction (Keras's ``Reshape``).

``shape`` is one example's target shape, without the batch dimension, as ``tw.Input(shape=)``
and Keras's ``target_shape``: ``Reshape(x, (2, 3))`` turns ``(None, 6)`` into
``(None, 2, 3)``, and one ``-1`` marks the size inferred from the others, so ``(-1,)``
flattens each example. When the per-example sizes are known, the inferred size is too,
and a target that does not hold one example fails at construction. To merge the batch
with other axes, use ``tw.ops.reshape(x, shape)``.

``None`` is no size: a target holding it (as a batch-first ``(None, 2, 3)`` would) fails,
naming the fix. See ``docs/shapes.md``.

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(n_units=6, name="x", value=np.arange(6.0).reshape(1, 6))
>>> y = Reshape(x, (2, 3))
>>> y.shape, y().numpy().tolist()
((None, 2, 3), [[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]])
>>> Reshape(tw.Input(shape=(4, 5)), (-1,)).shape
(None, 20)
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import describe, owner, require_dense

__all__ = ["Reshape"]


class Reshape(tw.Layer):
    """``x`` with each example reshaped to ``shape``.

    Args:
        x: the input layer (dense).
        shape: one example's target shape (no batch dimension); at most one ``-1``.
        name, share_state_with: see ``tw.Layer`` (no variables).
    """

    def __init__(
        self,
        x: tw.Layer,
        shape: Sequence[int],
        *,
        name: str | None = None,
        share_state_with: Reshape | None = None,
    ) -> None:
        who = owner("Reshape", name)
        require_dense(x, who)
        target = _entries(shape, who)
        size = _example_size(x)
        if None in target:
            raise tw.ArgumentError(_none_message(who, target))
        resolved = _resolve(target, size, x, who)
        # ``_target`` goes to tf.reshape as is, batch first, unless ``_per_example``: an
        # inferred size the input's shape does not fix, next to the batch size.
        self._per_example = None in resolved
        self._target: tuple[int | None, ...] = target if self._per_example else (-1, *resolved)
        super().__init__(
            x, shape=(None, *resolved), dtype=x.dtype, name=name, share_state_with=share_state_with
        )

    def compute(self, x: Any) -> tf.Tensor:
        """The reshaped tensor."""
        if self._per_example:
            return tf.reshape(x, tf.concat([tf.shape(x)[:1], self._target], 0))
        return tf.reshape(x, self._target)


def _entries(shape: Any, who: str) -> tuple[int | None, ...]:
    if isinstance(shape, (str, bytes)) or not isinstance(shape, Sequence):
        fix = f"({shape},)" if isinstance(shape, int) else "(2, 3)"
        raise tw.ArgumentError(
            f"{who}: shape must be a tuple of sizes (one example's), got {shape!r}. "
            f"Fix: Reshape(x, {fix})."
        )
    out: list[int | None] = []
    for d in shape:
        if d is not None and (
            isinstance(d, bool) or not isinstance(d, numbers.Integral) or d < -1 or d == 0
        ):
            raise tw.ArgumentError(
                f"{who}: target shape {tuple(shape)} must hold positive sizes and at most one "
                "-1 (the inferred one).\n  Fix: e.g. Reshape(x, (-1, 3))."
            )
        out.append(None if d is None else int(d))
    if sum(d == -1 for d in out) + sum(d is None for d in out) > 1:
        raise tw.ArgumentError(
            f"{who}: target shape {tuple(shape)} must hold positive sizes and at most one -1 "
            "(the inferred one).\n  Fix: e.g. Reshape(x, (-1, 3))."
        )
    return tuple(out)


def _example_size(x: tw.Layer) -> int | None:
    """The number of elements of one example, when every per-example size is known."""
    known = [d for d in x.shape[1:] if d is not None]
    return math.prod(known) if len(known) == len(x.shape) - 1 else None


def _none_message(who: str, target: tuple[int | None, ...]) -> str:
    if target[0] is None:
        rest = tuple(-1 if d is None else d for d in target[1:])
        return (
            f"{who}: shape={target} starts with the batch dimension; shape= is one example's "
            f"shape, as in Keras's Reshape. Fix: Reshape(x, {rest}) for each example, or "
            f"tw.ops.reshape(x, {(-1, *rest)}) to merge the batch with other axes."
        )
    return (
        f"{who}: shape={target} holds None, which is no size. Fix: -1 "
        "marks the one size inferred from the others, e.g. Reshape(x, (-1, 4))."
    )


def _resolve(
    target: tuple[int | None, ...], size: int | None, x: tw.Layer, who: str
) -> tuple[int | None, ...]:
    """``target`` with its ``-1`` worked out when ``size`` is known (else ``None``);
    ``ShapeError`` when the target cannot hold one example."""
    known = math.prod(int(d) for d in target if d is not None and d != -1)
    if size is None:
        return tuple(None if d == -1 else d for d in target)
    if -1 in target:
        if size % known:
            raise tw.ShapeError(
                f"{who}: cannot reshape input {describe(x)} to {target}: each example has "
                f"{size} elements, not a multiple of {known}.\n  Fix: choose sizes that "
                f"divide {size}, e.g. Reshape(x, (-1,)) to flatten."
            )
        return tuple(size // known if d == -1 else d for d in target)
    if known != size:
        raise tw.ShapeError(
            f"{who}: cannot reshape input {describe(x)} to {target}: each example has "
            f"{size} elements, the target holds {known}.\n  Fix: choose sizes whose product "
            f"is {size}, or -1 for one of them (Reshape(x, (-1,)) flattens)."
        )
    return target
