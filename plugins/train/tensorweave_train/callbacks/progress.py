"""``Progress``: the one progress display, of ``Model.train(verbose=...)``, ``tensorweave
train`` and the ``ProgressBar.v1`` callback.

``verbose=1`` (the default, as Keras): a bar per epoch on a terminal, else one line per
epoch; ``verbose=2``: one line per epoch; ``verbose=0``: nothing. The epoch line reads
``Epoch 3/20 - 0.4s - loss: 0.2311 - val_loss: 0.2541 - val_accuracy: 0.9306`` (ending in
``- skipped: 2`` when a file dataset with ``on_error = "skip"`` skipped records); a stop is
announced with its reason (which value, since when, whether the best weights were
restored). The bar is offered a step every ``every`` steps and redrawn (reading the loss,
which waits for the device) at most every ``REDRAW_SECONDS`` of ``clock``, so the display
costs little even when steps take a fraction of a millisecond. In a Jupyter notebook (an
IPython kernel: ``in_notebook``) the bar is tqdm's notebook widget (``ipywidgets``).

>>> import io
>>> from tensorweave_train import Event, TrainState
>>> out = io.StringIO(); p = Progress(2, file=out)
>>> st = TrainState(); st.epochs = 3; st.values = {"loss": 0.5, "learning_rate": 0.1}
>>> p(Event.TRAIN_START, st); p(Event.EPOCH_START, st); p(Event.EPOCH_END, st)
>>> out.getvalue().split(" - ")[0], out.getvalue().split(" - ")[2]
('Epoch 1/3', 'loss: 0.5000\\n')
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

import tensorweave as tw
from tensorweave_train.loop.events import (
    Callback,
    Event,
    TrainState,
    on_epoch,
    on_step,
    on_train,
)

__all__ = ["Progress", "ProgressBar", "epoch_line", "in_notebook"]


def in_notebook() -> bool:
    """Whether this runs in a Jupyter kernel (an IPython kernel: a notebook, JupyterLab,
    VS Code's notebooks), where the progress bar is tqdm's notebook widget.

    >>> in_notebook()
    False
    """
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    try:
        shell = ipython.get_ipython()
    except Exception:  # an IPython too old or half-imported
        return False
    return shell is not None and hasattr(shell, "kernel")


def epoch_line(state: TrainState, seconds: float, skipped: int = 0) -> str:
    """The Keras-style line of a finished epoch (the learning rate left out), with the
    count of ``skipped`` records when there are any.

    >>> from tensorweave_train import TrainState
    >>> st = TrainState(); st.epochs = 2; st.values = {"loss": 0.25}
    >>> epoch_line(st, 1.0, skipped=3)
    'Epoch 1/2 - 1.0s - loss: 0.2500 - skipped: 3'
    """
    values = " - ".join(f"{k}: {v:.4f}" for k, v in state.values.items() if k != "learning_rate")
    line = f"Epoch {state.epoch + 1}/{state.epochs} - {seconds:.1f}s - {values}"
    return f"{line} - skipped: {skipped}" if skipped else line


class Progress(Callback):
    """The progress display (see the module docstring).

    Args:
        verbose: 0 nothing, 1 a bar on a terminal else lines, 2 lines.
        file: where to write (default: lines to stdout, the bar to stderr).
        bar: ``True``/``False`` force the bar on or off (default: on a terminal, with
            ``verbose=1``).
        lines: print a line per epoch (default: with ``verbose=2``, or 1 without a bar).
        every: offer the bar a step every this many steps.
        announce_stop: say why training stopped early (default: unless ``verbose=0``).
        clock: the time in seconds (``time.perf_counter``; tests pass a fake one).
        skipped: the count of records the training data skipped this epoch (a file
            dataset's ``on_error = "skip"``), read at each epoch's end; shown when not 0.
    """

    priority = 60
    REDRAW_SECONDS = 0.1  # tqdm's own refresh interval: a faster redraw is not seen
    exact_steps = False  # only displays: may get its step events after a multi-step call

    def __init__(
        self,
        verbose: int = 1,
        *,
        file: Any = None,
        bar: bool | None = None,
        lines: bool | None = None,
        every: int = 16,
        announce_stop: bool | None = None,
        clock: Callable[[], float] = time.perf_counter,
        skipped: Callable[[], int] | None = None,
    ) -> None:
        if verbose not in (0, 1, 2):
            raise tw.ArgumentError(f"Model.train: verbose must be 0, 1 or 2, got {verbose!r}.")
        self.file = file
        out = file if file is not None else sys.stderr
        on_terminal = hasattr(out, "isatty") and out.isatty()
        self.notebook = file is None and in_notebook()  # tqdm's widget, not text
        shows_bar = on_terminal or self.notebook
        self.bar = (verbose == 1 and shows_bar) if bar is None else bool(bar and verbose)
        self.lines = (verbose == 2 or (verbose == 1 and not self.bar)) if lines is None else lines
        self.announce_stop = verbose > 0 if announce_stop is None else announce_stop
        self.every = max(1, int(every))
        self.clock = clock
        self.skipped = skipped
        self._bar: Any = None
        self.triggers = (on_train(at="start"), on_epoch(at="start"), on_epoch(), on_train())
        if self.bar:  # advanced every `every` steps: reading the loss syncs the device
            self.triggers = (*self.triggers, on_step(every=self.every))
        self._epoch_started = 0.0
        self._drawn: float | None = None  # when the bar was last redrawn (clock); never yet

    def _print(self, text: str) -> None:
        print(text, file=self.file if self.file is not None else sys.stdout, flush=True)

    def __call__(self, event: Event, state: TrainState) -> None:
        if event is Event.EPOCH_START:
            self._epoch_started = self.clock()
            if self.bar:
                self._open(state)
        elif event is Event.STEP_END and self._bar is not None:
            now = self.clock()
            if self._drawn is not None and now - self._drawn < self.REDRAW_SECONDS:
                return
            self._drawn = now
            self._bar.update(state.epoch_step - self._bar.n)
            self._bar.set_postfix_str(f"loss: {float(state.loss):.4f}", refresh=False)
        elif event is Event.EPOCH_END:
            seconds = self.clock() - self._epoch_started
            skipped = self.skipped() if self.skipped is not None else 0
            if self._bar is not None:
                self._bar.update(state.epoch_step - self._bar.n)
                self._bar.set_postfix_str(epoch_line(state, seconds, skipped).split(" - ", 2)[-1])
                self._close()
            if self.lines:
                self._print(epoch_line(state, seconds, skipped))
        elif event is Event.TRAIN_END:
            self._close()
            if state.stop_reason and self.announce_stop:
                self._print(f"Stopped after epoch {len(state.history)}: {state.stop_reason}")

    def on_failure(self, error: BaseException, state: TrainState) -> None:
        self._close()

    def _open(self, state: TrainState) -> None:
        if self.notebook:  # the widget (ipywidgets); tqdm.auto falls back to text without it
            from tqdm.auto import tqdm
        else:
            from tqdm import tqdm

        self._close()
        self._drawn = None
        self._bar = tqdm(
            total=state.steps_per_epoch,
            initial=state.epoch_step,
            desc=f"Epoch {state.epoch + 1}/{state.epochs}",
            file=self.file,
            leave=True,
        )

    def _close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


class ProgressBar(Progress):
    """``ProgressBar.v1``: the progress display as a bar only, advanced every ``every``
    steps; off when stderr is not a terminal, unless ``enabled=True``.

    >>> ProgressBar(enabled=False).bar
    False
    """

    def __init__(self, every: int = 10, enabled: bool | None = None, file: Any = None) -> None:
        out = file if file is not None else sys.stderr
        on_terminal = hasattr(out, "isatty") and out.isatty()
        shown = (on_terminal or (file is None and in_notebook())) if enabled is None else enabled
        super().__init__(1, file=file, bar=shown, lines=False, every=every, announce_stop=False)
