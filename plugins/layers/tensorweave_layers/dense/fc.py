"""``FC``: a fully connected layer, ``activation(x @ W + b)``, as one node: Keras's ``Dense``
(linear unless ``activation=`` is given, as there).

It holds a ``Linear`` in its state (so ``reuse_with`` shares ``W`` and ``b``, and
checkpoints see them) and applies the activation on top. For a graph you can open up,
build ``Activation(Linear(x, n))`` or fold it with ``tw.Module``; ``FC`` is the compact form.

>>> import tensorweave as tw
>>> x = tw.Input(n_units=2, name="x", value=[[1.0, -3.0]])
>>> h = FC(x, 2, activation="relu", w_init="ones", name="h")
>>> h.shape, h().numpy().tolist(), sorted(v.name for v in h.variables)
((None, 2), [[0.0, 0.0]], ['h/linear/bias:0', 'h/linear/weights:0'])
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner
from tensorweave_layers.dense.linear import Linear
from tensorweave_layers.options.weights import (
    ActivationLike,
    ConstraintLike,
    InitializerLike,
    RegularizerLike,
    activation_fn,
)

__all__ = ["FC"]


class FC(tw.Layer):
    """``activation(Linear(x, n_units))``.

    Args:
        x: the input layer (see ``Linear``).
        n_units: the output width.
        activation: an activation name or callable (``None``, the default: linear, as
            Keras's ``Dense``).
        add_bias, w_init, b_init: as for ``Linear``.
        w_regularizer, b_regularizer, w_constraint, b_constraint: as for ``Linear``.
        name, share_state_with: see ``tw.Layer``.
    """

    keeps_padding_mask = True  # steps stay steps: a padding mask passes on

    def __init__(
        self,
        x: tw.Layer,
        n_units: int | None = None,
        *,
        activation: ActivationLike = None,
        add_bias: bool = True,
        w_init: InitializerLike = "tensorweave-layers:glorot_uniform",
        b_init: InitializerLike = "tensorweave-layers:zeros",
        w_regularizer: RegularizerLike = None,
        b_regularizer: RegularizerLike = None,
        w_constraint: ConstraintLike = None,
        b_constraint: ConstraintLike = None,
        name: str | None = None,
        share_state_with: FC | None = None,
    ) -> None:
        who = owner("FC", name)
        self._act = activation_fn(activation, who)
        if share_state_with is not None:
            linear = share_state_with.state.linear.reuse_with(x)
        else:
            linear = Linear(
                x,
                n_units,
                add_bias=add_bias,
                w_init=w_init,
                b_init=b_init,
                w_regularizer=w_regularizer,
                b_regularizer=b_regularizer,
                w_constraint=w_constraint,
                b_constraint=b_constraint,
                name=f"{name}/linear" if name else None,
            )
        self._linear = linear
        super().__init__(
            x, shape=linear.shape, dtype=linear.dtype, name=name, share_state_with=share_state_with
        )

    def init_state(self) -> None:
        """Keep the inner ``Linear`` (its weights are this layer's variables)."""
        self.state.linear = self._linear

    @property
    def linear(self) -> Linear:
        """The inner linear transformation."""
        return self._linear

    def compute(self, x: Any) -> tf.Tensor:
        """``activation(x @ W + b)``."""
        return self._act(self._linear.compute(x))
