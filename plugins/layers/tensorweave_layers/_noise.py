"""``Noise``: the base of the layers that perturb their input at random in training only
(spatial dropout, Gaussian noise and dropout, alpha dropout).

Each follows the one ``training`` switch: a node made with ``training=True`` (the default)
perturbs, and the inference graph ``tw.with_options(outputs, training=False)`` (what
``Model`` evaluates and predicts with) passes its input through, without anything else to
set. Draws come from the layer state's generator (``self.state.generator()``): seeded by
``tf.random.set_seed``, shared by ``reuse_with``, saved by checkpoints. A subclass says
whether it is ``active`` (a rate above zero) and how to ``perturb`` a tensor.

>>> import numpy as np, tensorflow as tf, tensorweave as tw
>>> class Shift(Noise):
...     active = True
...     def perturb(self, x, rng):
...         return x + rng.uniform([])
>>> x = tw.Input(n_units=2, name="x", value=np.zeros((1, 2), "float32"))
>>> noisy = Shift(x)
>>> bool(np.all(noisy().numpy() > 0)), tw.with_options(noisy, training=False)().numpy().tolist()
(True, [[0.0, 0.0]])
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw

from ._shapes import describe
from ._shapes import owner as name_owner

__all__ = ["Noise", "check_rate"]


def check_rate(rate: float, owner: str) -> float:
    """``rate`` as a float in ``[0, 1)``, or an ``ArgumentError`` naming the layer."""
    if isinstance(rate, bool) or not isinstance(rate, int | float) or not 0.0 <= rate < 1.0:
        raise tw.ArgumentError(f"{owner}: rate must be a number in [0, 1), got {rate!r}.")
    return float(rate)


class Noise(tw.Layer):
    """Perturb ``x`` at random when ``training``, pass it through otherwise.

    Args:
        x: the input layer (dense, floating point).
        training: perturb (``True``) or be the identity (``False``).
        name, share_state_with: see ``tw.Layer``.
    """

    #: whether the perturbation does anything (subclasses: e.g. ``rate > 0``)
    active: bool = True

    def __init__(
        self,
        x: tw.Layer,
        *,
        training: bool = True,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        owner = name_owner(type(self).__name__, name)
        if x.sparse or not x.dtype.is_floating:
            raise tw.ShapeError(
                f"{owner}: needs a dense floating-point input, got {describe(x)} "
                f"({x.dtype.name}). Fix: densify or cast it (tw.ops.cast(x, tf.float32))."
            )
        self.training = bool(training)
        super().__init__(
            x, shape=x.shape, dtype=x.dtype, name=name, share_state_with=share_state_with
        )

    def init_state(self) -> None:
        """The random generator (checkpointed, so a resumed run draws on)."""
        self.state.generator()

    def perturb(self, x: tf.Tensor, rng: tf.random.Generator) -> tf.Tensor:
        """The perturbed ``x`` (training only), drawing from ``rng``."""
        raise NotImplementedError(f"{type(self).__name__} does not implement perturb(x, rng).")

    def compute(self, x: Any) -> tf.Tensor:
        """``perturb(x)`` in training (when active), ``x`` otherwise."""
        x = tf.convert_to_tensor(x)
        if self.training and self.active:
            return self.perturb(x, self.state.generator())
        return tf.identity(x)
