"""``AugmentOff.v1``: stop augmenting after some epochs, so the last ones see clean data.

A tensorweave-train callback: a ``Callback`` subclass with triggers and a ``__call__``. At
the start of each epoch it sets the ``strength`` of every ``Augment`` layer of the model
(``state.model.layers``): 1 for the first ``after_epoch`` epochs, 0 from then on, and
reports it as the value ``augment_strength`` of that epoch (in ``History`` and
``log.csv``). The strength is a variable of the layers, so checkpoints keep it too.

>>> import tensorweave_train as twt
>>> off = AugmentOff(after_epoch=2)
>>> state = twt.TrainState(epoch=2)
>>> off(twt.Event.EPOCH_START, state)
>>> state.values["augment_strength"]
0.0
"""

from __future__ import annotations

import tensorweave_train as twt
from tensorweave_augment.augment import Augment

__all__ = ["AugmentOff"]


class AugmentOff(twt.Callback):
    """Augment the first ``after_epoch`` epochs only: every ``Augment`` layer is off after.

    Args:
        after_epoch: the number of epochs trained with augmentation (``>= 0``).
    """

    def __init__(self, after_epoch: int = 1) -> None:
        self.after_epoch = int(after_epoch)
        if self.after_epoch < 0 or self.after_epoch != after_epoch:
            raise ValueError(f"AugmentOff: after_epoch must be an int >= 0, got {after_epoch!r}.")
        self.triggers = (twt.on_epoch(at="start"),)

    def __call__(self, event: twt.Event, state: twt.TrainState) -> None:
        strength = 1.0 if state.epoch < self.after_epoch else 0.0
        for layer in getattr(state.model, "layers", ()):
            if isinstance(layer, Augment):
                layer.strength.assign(strength)
        state.set("augment_strength", strength)
