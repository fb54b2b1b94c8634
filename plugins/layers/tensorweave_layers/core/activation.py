"""``Activation``: an activation function as a layer, by registered name or callable.

A name resolves through ``tw.activations.get`` (``"relu"`` -> the latest ``relu.vN``);
an unknown name fails at construction with the close matches. The function must keep
the shape of its input (it is applied element-wise, or over the last axis); a callable,
or a name with options, is traced once at construction to check that.

>>> import tensorweave as tw
>>> x = tw.Input(n_units=2, name="x", value=[[-1.0, 2.0]])
>>> Activation(x, "relu")().numpy().tolist()
[[0.0, 2.0]]
>>> Activation(x, "leaky_relu", alpha=0.5)().numpy().tolist()
[[-0.5, 2.0]]
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import describe, owner, require_dense
from tensorweave_layers.options.weights import ActivationLike, activation_fn

__all__ = ["Activation"]


class Activation(tw.Layer):
    """Apply ``activation(x, **options)``.

    Args:
        x: the input layer (dense).
        activation: an activation name (``"relu"``, ``"softmax.v1"``) or a callable;
            ``None`` is the identity (the name as in ``FC(activation=)``).
        name, share_state_with: see ``tw.Layer`` (an activation has no variables).
        **options: options for the function, e.g. ``alpha=`` for ``leaky_relu``.
    """

    keeps_padding_mask = True  # steps stay steps: a padding mask passes on

    def __init__(
        self,
        x: tw.Layer,
        activation: ActivationLike = "tensorweave-layers:relu",
        *,
        name: str | None = None,
        share_state_with: Activation | None = None,
        **options: Any,
    ) -> None:
        who = owner("Activation", name)
        require_dense(x, who)
        self.fn = activation_fn(activation, who, "activation")
        self._fn_kwargs = dict(options)
        if not isinstance(activation, str) or options:
            _check_shape_kept(self.fn, x, dict(options), who)
        super().__init__(
            x, shape=x.shape, dtype=x.dtype, name=name, share_state_with=share_state_with
        )
        # softmax outputs stay float32 under mixed precision: the function declares it
        self.compute_precision = getattr(self.fn, "compute_precision", "compute")

    def compute(self, x: Any) -> tf.Tensor:
        """``fn(x)``."""
        return self.fn(x, **self._fn_kwargs)


def _check_shape_kept(fn: Any, x: tw.Layer, kwargs: dict[str, Any], who: str) -> None:
    """Lambda's function check (traced once): the function must accept the options and
    keep the shape."""
    try:
        out = tw.Lambda.output_spec(fn, [x], kwargs, label=who)
    except tw.ShapeError as err:
        cause = err.__cause__ if err.__cause__ is not None else err
        raise tw.ShapeError(
            f"{who}: the activation fails on input {describe(x)} with options {kwargs}: {cause}"
        ) from err
    if not out.shape.is_compatible_with(x.shape):
        raise tw.ShapeError(
            f"{who}: the activation turns input {describe(x)} into {out.shape}; an activation "
            "must keep the shape.\n  Fix: use tw.Lambda(fn, x) for functions that change the "
            "shape."
        )
