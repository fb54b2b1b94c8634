"""``Augment.v1``: apply an augmenter to the batch while training; the identity otherwise.

The layer consumes a component of this pack's own kind: ``augmenter=`` takes a registered
augmenter's name (``"AugmentJitter.v1"``, built with its defaults), an augmenter object, or
in a config a block (``augmenter = { "@augmenters" = "AugmentJitter.v1", stddev = 0.05 }``),
all resolved by ``tw.resolve`` like every option that names a component. Its randomness
comes from the layer's own generator (``self.state.generator()``): checkpointed, shared by
``reuse_with`` copies, seeded by ``tf.random.set_seed``. ``strength`` (a variable, 1 by
default) mixes the augmented batch with the original one; the ``AugmentOff`` callback sets
it to 0. Like ``Dropout``, it follows the one ``training`` switch: ``Model`` derives its
inference graphs with ``training=False``, where this layer is the identity.

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(n_units=3, value=np.zeros((2, 3), "float32"))
>>> noisy = Augment(x, augmenter="AugmentJitter.v1")
>>> bool(np.any(noisy().numpy() != 0.0))
True
>>> noisy.reuse_with(x, training=False)().numpy().tolist()
[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, cast

import tensorflow as tf

import tensorweave as tw

__all__ = ["Augment"]

DEFAULT = "tensorweave-augment:AugmentJitter.v1"


class Augment(tw.Layer):
    """``x + strength * (augmenter(x) - x)`` while ``training``, ``x`` otherwise.

    Args:
        x: the input, floating point.
        augmenter: a registered augmenter's name (built with its defaults), an augmenter
            object, or ``None`` for ``AugmentJitter.v1`` with its defaults.
        training: augment (``True``) or pass ``x`` through (``False``).
        name: a readable name (default: ``augment``, ``augment_1``…).
        share_state_with: an ``Augment`` whose generator and strength to share
            (``reuse_with`` sets it).
    """

    # under mixed precision: the augmenters' noise and ``strength`` are float32 (a cheap
    # data operation on the inputs; see tensorweave.graph.precision)
    compute_precision = "float32"

    def __init__(
        self,
        x: tw.Layer,
        augmenter: str | Callable[..., Any] | None = None,
        *,
        training: bool = True,
        name: str | None = None,
        share_state_with: Augment | None = None,
    ) -> None:
        owner = f"Augment {name or ''}".strip()
        if not x.dtype.is_floating:
            raise TypeError(
                f"{owner}: augmenting needs a floating-point input, got {x.name!r} of dtype "
                f"{x.dtype.name}. Fix: cast it first, e.g. tw.ops.cast(x, tf.float32)."
            )
        found = tw.resolve(
            "augmenters", augmenter, default=DEFAULT, owner=owner, option="augmenter"
        )
        # a name resolves to the class: build it with its defaults
        self.augmenter = cast(Callable[..., Any], found() if inspect.isclass(found) else found)
        self.training = bool(training)
        super().__init__(
            x, shape=x.shape, dtype=x.dtype, name=name, share_state_with=share_state_with
        )

    def init_state(self) -> None:
        """The generator the augmenter draws from, and the strength the callback turns."""
        self.state.generator()
        self.state.strength = tf.Variable(1.0, trainable=False, dtype=self.dtype, name="strength")

    @property
    def strength(self) -> tf.Variable:
        """How much of the augmentation is applied (1: all of it, 0: none)."""
        strength: tf.Variable = self.state.strength
        return strength

    def compute(self, x: Any) -> Any:
        """The augmented batch (training) or ``x`` itself."""
        if not self.training:
            return tf.identity(x)
        augmented = self.augmenter(x, self.state.generator())
        return x + self.state.strength * (augmented - x)
