"""``Reshape``: give each example a new shape, checked at construction.

``shape`` is the full target shape, batch axis first; ``-1`` (or ``None``) marks the one
dimension ``tf.reshape`` infers, usually the batch: ``Reshape(x, (-1, 2, 3))`` turns
``(None, 6)`` into ``(None, 2, 3)``. When the per-example sizes are known, a target that
does not hold the same number of elements fails at construction. A leading ``-1``
means "keep the batch": each example is reshaped on its own (to merge the batch with
other axes, use ``tw.ops.reshape(x, shape)``).

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(n_units=6, name="x", value=np.arange(6.0).reshape(1, 6))
>>> y = Reshape(x, (-1, 2, 3))
>>> y.shape, y().numpy().tolist()
((None, 2, 3), [[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import describe, owner, require_dense

__all__ = ["Reshape"]


class Reshape(tw.Layer):
    """``tf.reshape(x, shape)``.

    Args:
        x: the input layer (dense).
        shape: the target shape including the batch axis; at most one ``-1``/``None``.
        name, share_state_with: see ``tw.Layer`` (no variables).
    """

    def __init__(
        self,
        x: tw.Layer,
        shape: Sequence[int | None],
        *,
        name: str | None = None,
        share_state_with: Reshape | None = None,
    ) -> None:
        who = owner("Reshape", name)
        require_dense(x, who)
        target = tuple(-1 if d is None else int(d) for d in shape)
        if sum(d == -1 for d in target) > 1 or any(d < -1 or d == 0 for d in target):
            raise ValueError(
                f"{who}: target shape {tuple(shape)} must have positive sizes and at most one "
                "-1 (the inferred one, usually the batch).\n  Fix: e.g. Reshape(x, (-1, 2, 3))."
            )
        if not target:
            raise ValueError(f"{who}: the target shape needs at least the batch axis.")
        per_example = [int(d) for d in x.shape[1:] if d is not None]
        if -1 in target and len(per_example) == len(x.shape) - 1:
            known = math.prod(d for d in target if d != -1)
            if target[0] == -1 and math.prod(per_example) != known:
                raise tw.ShapeError(
                    f"{who}: cannot reshape input {describe(x)} to {tuple(shape)}: each example "
                    f"has {math.prod(per_example)} elements, the target holds {known}.\n"
                    f"  Fix: choose sizes whose product is {math.prod(per_example)}."
                )
        self._target = target
        super().__init__(
            x,
            shape=tuple(None if d == -1 else d for d in target),
            dtype=x.dtype,
            name=name,
            share_state_with=share_state_with,
        )

    def compute(self, x: Any) -> tf.Tensor:
        """The reshaped tensor."""
        return tf.reshape(x, self._target)
