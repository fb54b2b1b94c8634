"""``LearningRateScheduler`` (``LearningRateScheduler.v1``): the learning rate as a function
of the epoch, set at each epoch's start, as Keras's callback.

``schedule`` is either a function as Keras's, ``schedule(epoch)`` or ``schedule(epoch, lr)``
returning the rate (``epoch`` counted from 0, ``lr`` the current base rate), or a schedule of
this pack (a ``Schedule``, or a registered name such as ``"Constant.v1"``): a factor of the
epoch, times the base rate the optimizer had when training started (kept in checkpoints,
so a resumed run sets the same rates). It sets the optimizer's base ``learning_rate``, so
a per-step ``schedule=`` of the optimizer still multiplies it.

>>> from tensorweave_train import SGD, StepDecay
>>> from tensorweave_train.loop.events import Event, TrainState
>>> class _Model: optimizer = SGD(0.1)
>>> st = TrainState(model=_Model(), epoch=3)
>>> cb = LearningRateScheduler(StepDecay(2, gamma=0.5))
>>> cb(Event.TRAIN_START, st); cb(Event.EPOCH_START, st); round(float(st.model.optimizer.learning_rate), 4)
0.05
>>> LearningRateScheduler(lambda epoch, lr: lr * 0.5)(Event.EPOCH_START, st)
>>> round(float(st.model.optimizer.learning_rate), 4)
0.025
"""

from __future__ import annotations

import inspect
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

import tensorweave as tw
from tensorweave_train.loop.events import Callback, Event, TrainState, on_epoch, on_train
from tensorweave_train.loop.metrics import figure
from tensorweave_train.optimizers.schedules import Schedule

__all__ = ["LearningRateScheduler"]


def _takes_rate(fn: Callable[..., Any]) -> bool:
    """Whether ``fn`` takes ``(epoch, lr)`` rather than ``(epoch)`` (Keras's two forms)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True
    positional = [
        p
        for p in params
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    ]
    return len(positional) >= 2 or any(p.kind is p.VAR_POSITIONAL for p in params)


class LearningRateScheduler(Callback):
    """Set the base learning rate at each epoch's start from a function of the epoch, or
    from a schedule's factor of the starting rate, as Keras's ``LearningRateScheduler``.

    Args:
        schedule: ``fn(epoch)`` or ``fn(epoch, lr)`` returning the rate, as Keras's; or a
            ``Schedule`` (or registered schedule name) giving a factor of the starting rate.
        verbose: 1 prints the rate set at each epoch, as Keras's.

    >>> from tensorweave_train import StepDecay
    >>> keras_style = LearningRateScheduler(lambda epoch, lr: lr if epoch < 10 else lr * 0.9)
    >>> halved = LearningRateScheduler(StepDecay(5, gamma=0.5))  # every 5 epochs
    >>> keras_style.takes_rate, halved.factor
    (True, True)
    """

    priority = -50  # before the epoch's other callbacks read the rate

    def __init__(self, schedule: Callable[..., Any] | str, verbose: int = 0) -> None:
        if isinstance(schedule, str):
            make = tw.resolve(
                "schedules", schedule, owner="LearningRateScheduler", option="schedule"
            )
            schedule = make()
        if not callable(schedule):
            raise tw.ArgumentError(
                f"LearningRateScheduler: schedule must be a function of the epoch or a "
                f"schedule, got {type(schedule).__name__} {schedule!r}. Fix: e.g. "
                "schedule=lambda epoch, lr: lr * 0.9, or a {'@schedules': ...} table."
            )
        self.schedule = schedule
        self.factor = isinstance(schedule, Schedule)  # a factor of the starting rate
        self.takes_rate = not self.factor and _takes_rate(schedule)
        self.verbose = int(verbose)
        self.initial: float | None = None  # the starting base rate (factor schedules)
        self.triggers = (on_train(at="start"), on_epoch(at="start"))

    def _rate(self, epoch: int, current: float) -> float:
        if self.factor:
            assert self.initial is not None
            value: Any = self.initial * float(self.schedule(epoch))
        elif self.takes_rate:
            value = self.schedule(epoch, current)
        else:
            value = self.schedule(epoch)
        value = np.asarray(value)
        if value.shape != () or not isinstance(value.item(), numbers.Real):
            raise tw.ArgumentError(
                f"LearningRateScheduler: the schedule returned {value!r} for epoch {epoch}; "
                "it must return one number, the learning rate. Fix: return a float."
            )
        return float(value)

    def __call__(self, event: Event, state: TrainState) -> None:
        optimizer = getattr(state.model, "optimizer", None)
        if optimizer is None:
            return
        current = float(optimizer.learning_rate.numpy())
        if self.initial is None:
            self.initial = current
        if event is Event.TRAIN_START:
            return
        rate = self._rate(state.epoch, current)
        optimizer.learning_rate.assign(rate)
        if self.verbose:
            print(
                f"\nEpoch {state.epoch + 1}: LearningRateScheduler setting learning rate to "
                f"{figure(rate)}."
            )

    def state_dict(self) -> dict[str, Any]:
        return {"initial": self.initial}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.initial = state.get("initial", self.initial)
