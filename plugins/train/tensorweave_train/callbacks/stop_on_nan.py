"""``StopOnNaN`` (``StopOnNaN.v1``): the guard that stops training when it turns NaN/inf.

It checks, with the loop's one check (``loop.nonfinite``): the step loss every ``every``
steps (reading a loss waits for the device: raise ``every`` on fast loops, or ``None`` for
no per-step check), and with ``at_epoch_end`` the epoch's mean loss and the weights at each
epoch's end (a NaN can vanish from the loss while the weights rot). ``reason`` says what,
where and the fix. It is the one NaN policy of the training it is in: the ``Trainer``'s own
``NonFiniteWarning`` (of the data, the epoch's loss and weights) stays quiet
(``Callback.guards_non_finite``). ``tensorweave train`` runs it at epoch ends only (no per-step cost) and
fails the job with its reason.

>>> from tensorweave_train import Event, TrainState
>>> guard, state = StopOnNaN(), TrainState(loss=float("nan"), step=3)
>>> guard(Event.STEP_END, state); state.stop_reason
'StopOnNaN: the loss is nan at step 3'
"""

from __future__ import annotations

import math

from tensorweave_train.loop.events import Callback, Event, TrainState, on_epoch, on_step
from tensorweave_train.loop.nonfinite import epoch_problem

__all__ = ["StopOnNaN"]


class StopOnNaN(Callback):
    """Stop as soon as the loss (every ``every`` steps) or, with ``at_epoch_end``, the
    epoch's loss or a weight is NaN or infinite; ``reason`` says why (``None`` while all is
    well).

    Args:
        every: check the step loss every this many steps; ``None``: no per-step check.
        at_epoch_end: also check the epoch's mean loss and the weights at each epoch's end.
    """

    priority = -100
    guards_non_finite = True

    def __init__(self, every: int | None = 1, at_epoch_end: bool = False) -> None:
        steps = () if every is None else (on_step(every=every),)
        self.triggers = (*steps, on_epoch()) if at_epoch_end else steps
        self.reason: str | None = None

    def __call__(self, event: Event, state: TrainState) -> None:
        if event is Event.STEP_END:
            value = float(state.loss)
            if not math.isfinite(value):
                self._stop(state, f"StopOnNaN: the loss is {value} at step {state.step}")
            return
        what = epoch_problem(state)
        if what is not None:
            self._stop(
                state,
                f"{what} at epoch {state.epoch + 1} (step {state.step}). "
                "Fix: look for NaN/inf in the data, or lower the learning rate.",
            )

    def _stop(self, state: TrainState, reason: str) -> None:
        self.reason = reason
        state.request_stop(reason)
