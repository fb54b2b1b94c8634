"""``Scale.v1``: multiply each unit by its own learned factor.

The smallest layer with state: the output shape is the input shape, one variable holds a
factor per unit (the last dimension), and ``compute`` is the maths. Everything else a layer
needs (``reuse_with``, checkpointing, compiling) comes from ``tw.Layer``.

>>> import tensorweave as tw
>>> x = tw.Input(n_units=2, value=[[1.0, -2.0]])
>>> y = Scale(x, initial=3.0)
>>> y().numpy().tolist()
[[3.0, -6.0]]
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw

__all__ = ["Scale", "rescale_v1"]


class Scale(tw.Layer):
    """``x * scale``, with ``scale`` a trainable vector of ``x.n_units`` factors.

    Args:
        x: the input layer; its last dimension must be known.
        initial: the starting value of every factor (1.0 leaves the input unchanged).
        name: a readable name (default: ``scale``, ``scale_1``…).
        share_state_with: a ``Scale`` whose factors to share (``reuse_with`` sets it).
    """

    def __init__(
        self,
        x: tw.Layer,
        *,
        initial: float = 1.0,
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
        self.initial = float(initial)  # read by init_state, which super().__init__ calls
        super().__init__(
            x, shape=x.shape, dtype=x.dtype, name=name, share_state_with=share_state_with
        )

    def init_state(self) -> None:
        """One factor per unit, all starting at ``initial``."""
        start = tf.fill([self.n_units], tf.constant(self.initial, dtype=self.dtype))
        self.state.scale = tf.Variable(start, name="scale")

    def compute(self, x: Any) -> Any:
        """Multiply the last dimension of ``x`` by the factors."""
        return x * self.state.scale


# A deprecated name kept working: the entry point "Rescale.v1" points at this alias, so
# looking it up warns (DeprecationWarning) and returns this pack's Scale.v1.
rescale_v1 = tw.alias("tensorweave-template:Scale.v1", reason="Rescale.v1 was renamed Scale.v1")
