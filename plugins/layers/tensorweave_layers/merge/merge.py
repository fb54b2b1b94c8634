"""``Merge``: a weighted merge of several layers with any merge function.

Each input is scaled by its weight, then ``merge_fn`` combines the list of tensors:
``"sum"`` (default), ``"mean"``, ``"max"``, ``"concat"`` or any callable taking a list of
tensors. The output shape is found by tracing ``merge_fn`` on the inputs' specs at
construction, so a function that does not fit the inputs fails there.

>>> import tensorweave as tw
>>> a = tw.Input(n_units=2, name="a", value=[[1.0, 2.0]])
>>> b = tw.Input(n_units=2, name="b", value=[[3.0, 6.0]])
>>> Merge(a, b, weights=[2.0, 1.0], merge_fn="mean")().numpy().tolist()
[[2.5, 5.0]]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import describe, owner, require_dense
from tensorweave_layers.merge.add import check_weights

__all__ = ["Merge", "MERGE_FUNCTIONS"]


def _sum(ts: list[tf.Tensor]) -> tf.Tensor:
    return tf.math.add_n(ts)


def _mean(ts: list[tf.Tensor]) -> tf.Tensor:
    return tf.math.add_n(ts) / tf.cast(len(ts), ts[0].dtype)


def _max(ts: list[tf.Tensor]) -> tf.Tensor:
    return tf.reduce_max(tf.stack(ts), axis=0)


def _concat(ts: list[tf.Tensor]) -> tf.Tensor:
    return tf.concat(ts, axis=-1)


MERGE_FUNCTIONS: dict[str, Callable[[list[tf.Tensor]], tf.Tensor]] = {
    "sum": _sum,
    "mean": _mean,
    "max": _max,
    "concat": _concat,
}


class Merge(tw.Layer):
    """``merge_fn([w0 * x0, w1 * x1, ...])``.

    Args:
        *inputs: one or more dense layers.
        weights: one factor per input (default: no scaling).
        merge_fn: ``"sum"``, ``"mean"``, ``"max"``, ``"concat"`` or a callable on a list.
        name, share_state_with: see ``tw.Layer`` (no variables).
    """

    def __init__(
        self,
        *inputs: tw.Layer,
        weights: Sequence[float] | None = None,
        merge_fn: str | Callable[[list[tf.Tensor]], tf.Tensor] = "sum",
        name: str | None = None,
        share_state_with: Merge | None = None,
    ) -> None:
        who = owner("Merge", name)
        if not inputs:
            raise ValueError(f"{who}: needs at least one input layer.")
        for layer in inputs:
            require_dense(layer, who)
        if isinstance(merge_fn, str):
            if merge_fn not in MERGE_FUNCTIONS:
                raise ValueError(
                    f"{who}: unknown merge_fn {merge_fn!r}. Fix: use one of "
                    f"{sorted(MERGE_FUNCTIONS)} or a callable taking a list of tensors."
                )
            merge_fn = MERGE_FUNCTIONS[merge_fn]
        if not callable(merge_fn):
            raise TypeError(f"{who}: merge_fn must be a name or callable, got {merge_fn!r}.")
        self._fn = merge_fn
        self._weights = check_weights(weights, len(inputs), who)
        spec = self._trace(inputs, who)
        super().__init__(
            *inputs,
            shape=spec.shape,
            dtype=spec.dtype,
            name=name,
            share_state_with=share_state_with,
        )

    def _trace(self, inputs: Sequence[tw.Layer], who: str) -> tf.TensorSpec:
        specs = [i.spec for i in inputs]
        try:
            traced = tf.function(lambda *t: self.compute(*t), autograph=False)
            out = traced.get_concrete_function(*specs)
            result = out.structured_outputs
        except Exception as err:
            listed = ", ".join(describe(i) for i in inputs)
            raise tw.ShapeError(
                f"{who}: merge_fn does not fit the inputs ({listed}): {err}\n  Fix: give the "
                "inputs shapes the merge accepts (same shape for sum/mean/max)."
            ) from err
        if not isinstance(result, tf.Tensor) or result.shape.rank is None:
            raise tw.ShapeError(f"{who}: merge_fn must return one tensor of known rank.")
        return tf.TensorSpec(result.shape, result.dtype)

    def compute(self, *tensors: Any) -> tf.Tensor:
        """Scale, then merge."""
        if self._weights is not None:
            tensors = tuple(t * tf.cast(w, t.dtype) for t, w in zip(tensors, self._weights))
        return self._fn(list(tensors))
