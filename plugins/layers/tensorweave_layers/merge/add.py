"""``Add``: the element-wise sum of several layers of one shape, optionally weighted.

With ``weights=`` each input is scaled first: ``w0 * x0 + w1 * x1 + ...``; with
``learn_weights=True`` those weights are a trainable variable (starting at ``weights``,
or ones). Shapes must match (``None`` matches any size); a mismatch fails at construction
naming every input.

>>> import tensorweave as tw
>>> a = tw.Input(n_units=2, name="a", value=[[1.0, 2.0]])
>>> b = tw.Input(n_units=2, name="b", value=[[10.0, 20.0]])
>>> Add(a, b)().numpy().tolist(), Add(a, b, weights=[1.0, 0.5])().numpy().tolist()
([[11.0, 22.0]], [[6.0, 12.0]])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import describe, merge_shapes, owner, require_dense
from tensorweave_layers.options.weights import ConstraintLike, RegularizerLike, WeightOptions

__all__ = ["Add", "check_weights"]


def check_weights(weights: Sequence[float] | None, n: int, who: str) -> list[float] | None:
    """``weights`` as floats, one per input, or ``None``."""
    if weights is None:
        return None
    out = [float(w) for w in weights]
    if len(out) != n:
        raise ValueError(f"{who}: got {len(out)} weights for {n} inputs; give one per input.")
    return out


class Add(tw.Layer):
    """``sum(w_i * x_i)`` over the inputs.

    Args:
        *inputs: two or more dense layers of the same shape and dtype.
        weights: one factor per input (default: plain sum).
        learn_weights: make the factors a trainable variable.
        w_regularizer, w_constraint: of the learned factors.
        name, share_state_with: see ``tw.Layer``.
    """

    keeps_padding_mask = True  # steps stay steps: a padding mask passes on

    def __init__(
        self,
        *inputs: tw.Layer,
        weights: Sequence[float] | None = None,
        learn_weights: bool = False,
        w_regularizer: RegularizerLike = None,
        w_constraint: ConstraintLike = None,
        name: str | None = None,
        share_state_with: Add | None = None,
    ) -> None:
        who = owner("Add", name)
        if len(inputs) < 1:
            raise ValueError(f"{who}: needs at least one input layer.")
        for layer in inputs:
            require_dense(layer, who)
        shape = merge_shapes(
            [i.shape for i in inputs],
            who,
            "give every input the same shape: project with Linear(x, n_units) to one width, "
            "or Reshape.",
            [describe(i) for i in inputs],
        )
        dtypes = {i.dtype for i in inputs}
        if len(dtypes) > 1:
            raise TypeError(
                f"{who}: inputs have different dtypes {sorted(d.name for d in dtypes)}. "
                "Fix: cast them to one dtype."
            )
        self._weights = check_weights(weights, len(inputs), who)
        self._learn = bool(learn_weights)
        self._weight_options = WeightOptions.resolve(who, w_regularizer, w_constraint=w_constraint)
        super().__init__(
            *inputs,
            shape=shape,
            dtype=inputs[0].dtype,
            name=name,
            share_state_with=share_state_with,
        )

    def init_state(self) -> None:
        """The trainable factors, when ``learn_weights``."""
        if self._learn:
            start = self._weights or [1.0] * len(self.inputs)
            value = tf.constant(start, self.dtype)
            self.state.weights = self._weight_options.weight(self.state, "weights", value)

    def compute(self, *tensors: Any) -> tf.Tensor:
        """The (weighted) sum."""
        if self._learn:
            w = tf.unstack(self.state.weights)
            tensors = tuple(t * w[i] for i, t in enumerate(tensors))
        elif self._weights is not None:
            tensors = tuple(t * w for t, w in zip(tensors, self._weights))
        return tf.math.add_n(list(tensors))
