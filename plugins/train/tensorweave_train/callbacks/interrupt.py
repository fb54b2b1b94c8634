"""``InterruptToStop``: Ctrl-C stops training after the current step, cleanly.

The job installs it: the first Ctrl-C (SIGINT) asks the loop to stop after the current step
(the checkpoint callback then saves, and the job says how to resume); a second one raises
``KeyboardInterrupt`` at once. It installs its handler only in the main thread.

>>> InterruptToStop().priority
-200
"""

from __future__ import annotations

import signal
import threading
from typing import Any

from tensorweave_train.loop.events import Callback, Event, TrainState, on_step

__all__ = ["InterruptToStop"]


class InterruptToStop(Callback):
    """Ctrl-C (SIGINT) asks the loop to stop after the current step; a second one raises
    ``KeyboardInterrupt`` at once. Installed only in the main thread."""

    priority = -200

    def __init__(self) -> None:
        self.triggers = (on_step(),)
        self.hit = False
        self._previous: Any = None

    def install(self) -> None:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)

    def uninstall(self) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None

    def _handle(self, signum: int, frame: Any) -> None:
        self.hit = True
        self.uninstall()  # a second Ctrl-C interrupts at once

    def __call__(self, event: Event, state: TrainState) -> None:
        if self.hit:
            state.request_stop("interrupted (Ctrl-C)")
