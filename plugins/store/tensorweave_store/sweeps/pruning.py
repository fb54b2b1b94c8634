"""Pruning a sweep's trials through the train pack's events.

Inside ``report_to(trial, metric)``, every training in this process reports
``val_<metric>`` to the Optuna ``trial`` at each epoch's end (through a callback the
``tensorweave_train_callbacks`` hook adds) and stops when the trial's pruner says so. While
the study's database is out of reach the epochs go unreported and nothing is pruned.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from typing import Any

import tensorweave as tw

__all__ = ["TrialReporter", "report_to"]


class TrialReporter:
    """A pluggy plugin giving every training in this worker the current trial's reporter."""

    def __init__(self) -> None:
        self.trial: Any = None
        self.metric = "loss"
        self.pruned_at: int | None = None

    @tw.hookimpl
    def tensorweave_train_callbacks(self, model: Any) -> list[Any]:
        if self.trial is None:
            return []
        from tensorweave_train import Callback, Event, TrainState, on_epoch

        plugin = self

        class ReportToTrial(Callback):
            priority = 90  # after the values are set, before checkpoints (100)
            triggers = (on_epoch(),)

            def __call__(self, event: Event, state: TrainState) -> None:
                value = state.values.get(f"val_{plugin.metric}")
                if value is None or not math.isfinite(value):
                    return
                try:
                    plugin.trial.report(float(value), state.epoch)
                    prune = plugin.trial.should_prune()
                except Exception as err:  # the study's database is out of reach: go on
                    from tensorweave_store.db.outage import is_outage

                    if not is_outage(err):
                        raise
                    return
                if prune:
                    plugin.pruned_at = state.epoch
                    state.request_stop(f"pruned by the sweep at epoch {state.epoch + 1}")

        return [ReportToTrial()]


_PLUGIN = TrialReporter()


@contextlib.contextmanager
def report_to(trial: Any, metric: str) -> Iterator[TrialReporter]:
    """While inside, every training in this process reports ``val_<metric>`` to ``trial``
    at each epoch's end and stops when the trial's pruner says so (``pruned_at``)."""
    from tensorweave_train import ensure_hookspecs

    pm = ensure_hookspecs()
    if not pm.is_registered(_PLUGIN):
        pm.register(_PLUGIN, name="tensorweave-store:sweep-trial")
    _PLUGIN.trial, _PLUGIN.metric, _PLUGIN.pruned_at = trial, metric, None
    try:
        yield _PLUGIN
    finally:
        _PLUGIN.trial = None
