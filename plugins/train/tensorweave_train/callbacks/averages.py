"""``SwapEMAWeights`` (``SwapEMAWeights.v1``): validation on the optimizer's weight averages,
as Keras's ``SwapEMAWeights``.

With an optimizer built with ``ema=True`` (see ``optimizers.averaging``), it swaps the
averages into the weights before each validation and back after it, so ``val_*`` figures
are the averaged model's while training goes on from the trained weights. With
``swap_on_epoch=True`` the averages also stay in from each epoch's end to the next
epoch's start, so the callbacks after it at an epoch's end (the checkpoint, priority 100)
see them. Which way round the weights are is the optimizer's saved state
(``averages_in_model``), so a run resumed from such a checkpoint swaps back first, and
``Model.train`` leaves the averages in the weights when training ends either way.

>>> SwapEMAWeights(swap_on_epoch=True).priority
90
"""

from __future__ import annotations

from typing import Any

import tensorweave as tw
from tensorweave_train.loop.events import (
    Callback,
    Event,
    TrainState,
    on_epoch,
    on_train,
    on_validation,
)

__all__ = ["SwapEMAWeights"]


class SwapEMAWeights(Callback):
    """Swap the optimizer's weight averages (``ema=True``) into the weights for each
    validation, and back after it, as Keras's ``SwapEMAWeights``.

    Args:
        swap_on_epoch: keep the averages in the weights from each epoch's end to the next
            epoch's start too (Keras's name), for the checkpoint and loggers.

    >>> from tensorweave_train import Adam
    >>> optimizer = Adam(1e-3, ema=True)  # Model(..., optimizer=optimizer)
    >>> callbacks = [SwapEMAWeights()]    # model.train(..., callbacks=callbacks): val_* averaged
    >>> bool(optimizer.averages_in_model)
    False
    """

    priority = 90  # after monitors and loggers at an epoch's end, before the checkpoint

    def __init__(self, swap_on_epoch: bool = False) -> None:
        self.swap_on_epoch = bool(swap_on_epoch)
        triggers = [on_train(at="start"), on_validation(at="start"), on_validation()]
        if self.swap_on_epoch:
            triggers += [on_epoch(at="start"), on_epoch()]
        self.triggers = tuple(triggers)

    @staticmethod
    def _optimizer(state: TrainState) -> Any:
        optimizer = getattr(state.model, "optimizer", None)
        if getattr(optimizer, "averages_in_model", None) is None:
            raise tw.ArgumentError(
                f"SwapEMAWeights needs an optimizer that keeps weight averages, got "
                f"{optimizer!r}. Fix: build the optimizer with ema=True (e.g. "
                "Adam(1e-3, ema=True), or ema = true in the config's [optimizer])."
            )
        return optimizer

    def _put(self, state: TrainState, averages: bool) -> None:
        """Have the averages in the weights (``averages=True``) or the trained weights."""
        optimizer = self._optimizer(state)
        if bool(optimizer.averages_in_model.numpy()) != averages:
            assert state.model is not None
            optimizer.swap_averages(state.model.trainable_variables)

    def __call__(self, event: Event, state: TrainState) -> None:
        if state.model is None:
            return
        if event is Event.TRAIN_START:
            self._optimizer(state)  # refuse an optimizer without averages at once
        elif event in (Event.VALIDATION_START, Event.EPOCH_END):
            self._put(state, averages=True)
        elif event is Event.EPOCH_START or not self.swap_on_epoch:
            self._put(state, averages=False)
