"""``Concat``: join layers along one axis (the last by default), dense or all-sparse.

Every other dimension must match; the joined dimension is the sum of the inputs' (or
``None`` when one of them is dynamic).

>>> import tensorweave as tw
>>> a = tw.Input(n_units=2, name="a", value=[[1.0, 2.0]])
>>> b = tw.Input(n_units=1, name="b", value=[[3.0]])
>>> c = Concat(a, b)
>>> c.shape, c().numpy().tolist()
((None, 3), [[1.0, 2.0, 3.0]])
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import describe, owner

__all__ = ["Concat"]


class Concat(tw.Layer):
    """Concatenate the inputs along ``axis``.

    Args:
        *inputs: layers of one rank and dtype, all dense or all sparse.
        axis: the axis to join (not the batch axis 0).
        name, share_state_with: see ``tw.Layer`` (no variables).
    """

    def __init__(
        self,
        *inputs: tw.Layer,
        axis: int = -1,
        name: str | None = None,
        share_state_with: Concat | None = None,
    ) -> None:
        who = owner("Concat", name)
        if not inputs:
            raise ValueError(f"{who}: needs at least one input layer.")
        listed = ", ".join(describe(i) for i in inputs)
        rank = len(inputs[0].shape)
        if any(len(i.shape) != rank for i in inputs):
            raise tw.ShapeError(
                f"{who}: inputs have different ranks: {listed}.\n  Fix: Reshape them to one rank."
            )
        if not -rank <= axis < rank or axis % rank == 0:
            raise ValueError(
                f"{who}: axis={axis} is not a non-batch axis of rank-{rank} inputs ({listed})."
            )
        axis %= rank
        if len({i.sparse for i in inputs}) > 1:
            raise tw.ShapeError(
                f"{who}: cannot mix sparse and dense inputs: {listed}.\n  Fix: ToDense the "
                "sparse ones (or ToSparse the dense ones)."
            )
        if len({i.dtype for i in inputs}) > 1:
            raise TypeError(f"{who}: inputs have different dtypes: {listed}. Fix: cast them.")
        shape: list[int | None] = list(inputs[0].shape)
        for layer in inputs[1:]:
            for d, (a, b) in enumerate(zip(shape, layer.shape)):
                if d == axis:
                    continue
                if a is not None and b is not None and a != b:
                    raise tw.ShapeError(
                        f"{who}: inputs must match on every axis but {axis}; axis {d} differs: "
                        f"{listed}.\n  Fix: make the other axes equal (Reshape, Linear), or "
                        "concatenate along another axis."
                    )
                shape[d] = a if a is not None else b
        sizes = [i.shape[axis] for i in inputs]
        shape[axis] = None if any(s is None for s in sizes) else sum(s or 0 for s in sizes)
        self._axis = axis
        super().__init__(
            *inputs,
            shape=shape,
            dtype=inputs[0].dtype,
            sparse=inputs[0].sparse,
            name=name,
            share_state_with=share_state_with,
        )

    def compute(self, *tensors: Any) -> Any:
        """``tf.concat`` (``tf.sparse.concat`` for sparse inputs)."""
        if self.sparse:
            return tf.sparse.concat(self._axis, list(tensors))
        return tf.concat(list(tensors), axis=self._axis)
