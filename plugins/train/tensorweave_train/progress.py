"""What ``Model.train`` shows while it runs (``verbose=``), and Keras's ``validation_split``.

``verbose=1`` (the default, as Keras): a progress bar per epoch on a terminal, else one
line per epoch; ``verbose=2``: one line per epoch; ``verbose=0``: nothing (as Keras). The epoch line
reads ``Epoch 3/20 - 0.4s - loss: 0.2311 - val_loss: 0.2541 - val_accuracy: 0.9306``; an
early stop is announced with its reason (which value, since when, whether the best
weights were restored). The line is printed once per epoch; the bar is offered a step
every ``Progress.BAR_EVERY`` steps and redrawn (reading the loss, which waits for the
device) at most every ``Progress.REDRAW_SECONDS``, so the display costs under 1% of
training even when steps take a fraction of a millisecond.

>>> import io
>>> import numpy as np
>>> from tensorweave_train.events import Event, TrainState
>>> out = io.StringIO(); p = Progress(2, file=out)
>>> st = TrainState(); st.epochs = 3; st.values = {"loss": 0.5, "learning_rate": 0.1}
>>> p(Event.TRAIN_START, st); p(Event.EPOCH_START, st); p(Event.EPOCH_END, st)
>>> out.getvalue().split(" - ")[0], out.getvalue().split(" - ")[2]
('Epoch 1/3', 'loss: 0.5000\\n')
>>> held = split_validation({"x": np.arange(10)}, 0.2)
>>> held[0]["x"].tolist(), held[1]["x"].tolist()
([0, 1, 2, 3, 4, 5, 6, 7], [8, 9])
"""

from __future__ import annotations

import sys
import time
from typing import Any

import numpy as np

import tensorweave as tw
from tensorweave_train.events import Callback, Event, TrainState, on_epoch, on_step, on_train

__all__ = ["Progress", "split_validation", "epoch_line"]


def epoch_line(state: TrainState, seconds: float) -> str:
    """The Keras-style line of a finished epoch (the learning rate left out)."""
    values = " - ".join(f"{k}: {v:.4f}" for k, v in state.values.items() if k != "learning_rate")
    return f"Epoch {state.epoch + 1}/{state.epochs} - {seconds:.1f}s - {values}"


class Progress(Callback):
    """The display of ``Model.train(verbose=...)`` (see the module docstring)."""

    priority = 60
    BAR_EVERY = 16
    REDRAW_SECONDS = 0.1  # tqdm's own refresh interval: a faster redraw is not seen
    exact_steps = False  # only displays: may get its step events after a multi-step call

    def __init__(self, verbose: int = 1, file: Any = None) -> None:
        if verbose not in (0, 1, 2):
            raise tw.ArgumentError(f"Model.train: verbose must be 0, 1 or 2, got {verbose!r}.")
        self.file = file
        out = file if file is not None else sys.stderr
        self.bar = verbose == 1 and hasattr(out, "isatty") and out.isatty()
        self.lines = verbose == 2 or (verbose == 1 and not self.bar)
        self._bar: Any = None
        self.triggers = (on_train(at="start"), on_epoch(at="start"), on_epoch(), on_train())
        if self.bar:  # advanced every BAR_EVERY steps: reading the loss syncs the device
            self.triggers = (*self.triggers, on_step(every=self.BAR_EVERY))
        self._epoch_started = 0.0
        self._drawn = 0.0  # when the bar was last redrawn (perf_counter)

    def _print(self, text: str) -> None:
        print(text, file=self.file if self.file is not None else sys.stdout, flush=True)

    def __call__(self, event: Event, state: TrainState) -> None:
        if event is Event.EPOCH_START:
            self._epoch_started = time.perf_counter()
            if self.bar:
                self._open(state)
        elif event is Event.STEP_END and self._bar is not None:
            now = time.perf_counter()
            if now - self._drawn < self.REDRAW_SECONDS:
                return
            self._drawn = now
            self._bar.update(state.epoch_step - self._bar.n)
            self._bar.set_postfix_str(f"loss: {float(state.loss):.4f}", refresh=False)
        elif event is Event.EPOCH_END:
            seconds = time.perf_counter() - self._epoch_started
            if self._bar is not None:
                self._bar.update(state.epoch_step - self._bar.n)
                self._bar.set_postfix_str(epoch_line(state, seconds).split(" - ", 2)[-1])
                self._close()
            elif self.lines:
                self._print(epoch_line(state, seconds))
        elif event is Event.TRAIN_END:
            self._close()
            if state.stop_reason:
                self._print(f"Stopped after epoch {len(state.history)}: {state.stop_reason}")

    def _open(self, state: TrainState) -> None:
        self._close()
        self._bar = open_epoch_bar(state, self.file, "Epoch")

    def _close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def open_epoch_bar(state: TrainState, file: Any, label: str) -> Any:
    """A tqdm bar for the epoch ``state`` is in (``label 2/10``), resumed at its step: the
    one bar of both ``Model.train(verbose=1)`` and the ``ProgressBar.v1`` callback."""
    from tqdm.auto import tqdm

    return tqdm(
        total=state.steps_per_epoch,
        initial=state.epoch_step,
        desc=f"{label} {state.epoch + 1}/{state.epochs}",
        file=file,
        leave=True,
    )


def split_validation(data: Any, fraction: float) -> tuple[Any, Any]:
    """Keras's ``validation_split``: the last ``fraction`` of the examples (before any
    shuffling) held out for validation; ``data`` is ``{name: array}`` or a tuple of arrays."""
    if not 0.0 < float(fraction) < 1.0:
        raise tw.ArgumentError(
            f"Model.train: validation_split must be between 0 and 1, got {fraction!r}."
        )
    if isinstance(data, dict):
        items = list(data.items())
    elif isinstance(data, tuple):
        items = list(enumerate(data))
    else:
        raise tw.ArgumentError(
            "Model.train: validation_split needs array data ({name: array} or a tuple of "
            f"arrays), got {type(data).__name__}. Fix: pass validation=... instead."
        )
    sizes = {len(v) for _, v in items}
    if len(sizes) != 1:
        raise tw.ArgumentError(f"Model.train: the data's fields differ in length: {sorted(sizes)}.")
    n = sizes.pop()
    cut = n - round(n * float(fraction))
    if cut <= 0 or cut >= n:
        raise tw.ArgumentError(
            f"Model.train: validation_split={fraction} of {n} examples leaves "
            f"{cut} to train on and {n - cut} to validate. Fix: use more data or another split."
        )
    train = {k: np.asarray(v)[:cut] for k, v in items}
    valid = {k: np.asarray(v)[cut:] for k, v in items}
    if isinstance(data, tuple):
        return tuple(train.values()), tuple(valid.values())
    return train, valid
