"""``TemplateScale.v1``: multiply each unit by its own learned factor.

The smallest layer with state: the output shape is the input shape, one variable holds a
factor per unit (the last dimension), and ``compute`` is the maths. Everything else a layer
needs (``reuse_with``, checkpointing, compiling) comes from ``tw.Layer``. Options are plain
attributes (``self.initial = ...``); only ``self.state`` is saved state.

>>> import tensorweave as tw
>>> x = tw.Input(n_units=2, value=[[1.0, -2.0]])
>>> y = Scale(x, initial=3.0)
>>> y().numpy().tolist()
[[3.0, -6.0]]
>>> Scale(x, activation=abs)().numpy().tolist()
[[1.0, 2.0]]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensorflow as tf

import tensorweave as tw

__all__ = ["Scale", "rescale_v1"]


class Scale(tw.Layer):
    """``activation(x * scale)``, with ``scale`` a trainable vector of ``x.n_units`` factors.

    Args:
        x: the input layer; its last dimension must be known.
        initial: the starting value of every factor (1.0 leaves the input unchanged).
        activation: applied to the result: ``None`` (none), a callable, or the name of a
            registered activation (``"relu"``, offered by tensorweave-layers), resolved by
            ``tw.resolve`` like every component option.
        name: a readable name (default: ``scale``, ``scale_1``…).
        share_state_with: a ``Scale`` whose factors to share (``reuse_with`` sets it).
    """

    def __init__(
        self,
        x: tw.Layer,
        *,
        initial: float = 1.0,
        activation: str | Callable[..., Any] | None = None,
        name: str | None = None,
        share_state_with: Scale | None = None,
    ) -> None:
        if not x.shape or x.shape[-1] is None:
            raise tw.ShapeError(
                f"Scale needs a known last dimension, got input {x.name!r} of shape {x.shape}. "
                "Fix: build the input with n_units= (or a shape whose last dimension is set)."
            )
        if not x.dtype.is_floating:
            raise TypeError(
                f"Scale needs a floating-point input, got {x.name!r} of dtype {x.dtype.name}. "
                "Fix: cast it first, e.g. tw.Lambda(lambda t: tf.cast(t, tf.float32), x)."
            )
        # Options are plain attributes; init_state (called by super().__init__) reads them.
        self.initial = float(initial)
        self.activation = tw.resolve(
            "activations", activation, owner=f"Scale {name or ''}".strip(), option="activation"
        )
        super().__init__(
            x, shape=x.shape, dtype=x.dtype, name=name, share_state_with=share_state_with
        )

    def init_state(self) -> None:
        """One factor per unit, all starting at ``initial``."""
        start = tf.fill([self.n_units], tf.constant(self.initial, dtype=self.dtype))
        self.state.scale = tf.Variable(start, name="scale")

    def compute(self, x: Any) -> Any:
        """Multiply the last dimension of ``x`` by the factors (then the activation)."""
        y = x * self.state.scale
        return y if self.activation is None else self.activation(y)


# A deprecated name kept working: the entry point "TemplateRescale.v1" points at this
# alias, so looking it up warns (the registry does, naming the new name) and returns this
# pack's Scale. Registry aliases are the one compatibility mechanism (CONTRIBUTING.md).
rescale_v1 = tw.alias(
    "tensorweave-template:TemplateScale.v1",
    reason="TemplateRescale.v1 was renamed TemplateScale.v1",
)
