"""``Gate`` and ``CoupledGate``: filter layers with a gate computed from another layer.

``Gate(x, g)`` returns ``x * gate_activation(g)``. The gate may be narrower than ``x`` when it
divides ``x``'s width: with ``x`` of width 4 and ``g`` of width 2, ``[x1, x2]`` are
scaled by ``g1`` and ``[x3, x4]`` by ``g2``. ``CoupledGate(x1, x2, g)`` mixes two layers,
``x1 * s + x2 * (1 - s)`` with ``s = gate_activation(g)`` (as in highway networks and GRUs).

>>> import tensorweave as tw
>>> x = tw.Input(n_units=4, name="x", value=[[1.0, 2.0, 3.0, 4.0]])
>>> g = tw.Input(n_units=2, name="g", value=[[1.0, 0.0]])
>>> Gate(x, g, gate_activation=None)().numpy().tolist()
[[1.0, 2.0, 0.0, 0.0]]
>>> y = tw.Input(n_units=4, name="y", value=[[9.0, 9.0, 9.0, 9.0]])
>>> CoupledGate(x, y, g, gate_activation=None)().numpy().tolist()
[[1.0, 2.0, 9.0, 9.0]]
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import describe, merge_shapes, owner, require_dense, require_width
from tensorweave_layers.options.weights import ActivationLike, activation_fn

__all__ = ["Gate", "CoupledGate"]


def _check(who: str, gated: list[tw.Layer], gate: tw.Layer) -> tuple[tuple[int | None, ...], int]:
    for layer in [*gated, gate]:
        require_dense(layer, who)
    shape = merge_shapes(
        [g.shape for g in gated], who, "the gated layers must have one shape (Linear to one width)."
    )
    width = require_width(gated[0], who)
    n_gates = require_width(gate, who)
    if len(gate.shape) != len(shape) or width % n_gates:
        raise tw.ShapeError(
            f"{who}: the gate {describe(gate)} must have the rank of the gated input "
            f"{shape} and a width dividing {width}.\n  Fix: make the gate Linear(g, {width}) "
            "(one gate per unit) or a divisor of it."
        )
    merge_shapes([shape[:-1], gate.shape[:-1]], who, "the gate must match on the leading axes.")
    return shape, n_gates


def _apply(x: tf.Tensor, s: tf.Tensor, n_gates: int, width: int) -> tf.Tensor:
    if n_gates == width:
        return x * s
    lead = tf.shape(x)[:-1]
    grouped = tf.reshape(x, tf.concat([lead, [n_gates, width // n_gates]], 0))
    return tf.reshape(grouped * s[..., None], tf.shape(x))


class Gate(tw.Layer):
    """``x * gate_activation(gate)``.

    Args:
        x: the layer to filter (dense, known width).
        gate: the gate's pre-activation; its width divides ``x``'s width.
        gate_activation: the gate activation (name or callable; ``None`` uses ``gate`` as is).
        name, share_state_with: see ``tw.Layer`` (no variables).
    """

    def __init__(
        self,
        x: tw.Layer,
        gate: tw.Layer,
        *,
        gate_activation: ActivationLike = "tensorweave-layers:sigmoid",
        name: str | None = None,
        share_state_with: Gate | None = None,
    ) -> None:
        who = owner("Gate", name)
        shape, n_gates = _check(who, [x], gate)
        self._fn = activation_fn(gate_activation, who, "gate_activation")
        self._n_gates = n_gates
        super().__init__(
            x, gate, shape=shape, dtype=x.dtype, name=name, share_state_with=share_state_with
        )

    def compute(self, x: Any, gate: Any) -> tf.Tensor:
        """The gated ``x``."""
        return _apply(x, self._fn(gate), self._n_gates, int(self.shape[-1] or 0))


class CoupledGate(tw.Layer):
    """``x1 * s + x2 * (1 - s)`` with ``s = gate_activation(gate)``.

    Args:
        x1, x2: the layers to mix (dense, one shape).
        gate: the gate's pre-activation; its width divides the layers' width.
        gate_activation: the gate activation (name or callable; ``None`` uses ``gate`` as is).
        name, share_state_with: see ``tw.Layer`` (no variables).
    """

    def __init__(
        self,
        x1: tw.Layer,
        x2: tw.Layer,
        gate: tw.Layer,
        *,
        gate_activation: ActivationLike = "tensorweave-layers:sigmoid",
        name: str | None = None,
        share_state_with: CoupledGate | None = None,
    ) -> None:
        who = owner("CoupledGate", name)
        shape, n_gates = _check(who, [x1, x2], gate)
        self._fn = activation_fn(gate_activation, who, "gate_activation")
        self._n_gates = n_gates
        super().__init__(
            x1,
            x2,
            gate,
            shape=shape,
            dtype=x1.dtype,
            name=name,
            share_state_with=share_state_with,
        )

    def compute(self, x1: Any, x2: Any, gate: Any) -> tf.Tensor:
        """The mix of ``x1`` and ``x2``."""
        s = self._fn(gate)
        width = int(self.shape[-1] or 0)
        return _apply(x1, s, self._n_gates, width) + _apply(x2, 1.0 - s, self._n_gates, width)
