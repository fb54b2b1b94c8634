"""``RecordRun.v1``: the callback that writes a run's epochs into the store.

The store's plugin adds one to every ``tensorweave train``/``resume`` on its own. For a
plain ``Model.train`` ask for it by name (the run is opened at the start and closed at the
end of training: ``finished``; ``failed`` with the error when training raises,
``interrupted`` on Ctrl-C, as for ``tensorweave train``)::

    model.train(data, epochs=5, callbacks=[("RecordRun.v1", {"name": "my-exp", "tags": ["a"]})])

Under a multi-worker strategy only the chief records (one run); a job's run lists the
workers in its summary (``tensorweave runs show``).

>>> RecordRun(name="x").priority
90
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tensorweave_store.db.urls import config_url, redact
from tensorweave_train import Callback, Event, TrainState, is_chief, on_epoch, on_train

__all__ = ["RecordRun"]


class RecordRun(Callback):
    """Record each epoch's values (and the heartbeat) in the store.

    Args:
        name: the run's name (own runs only; a job's run is named by its config).
        tags: tags of the run.
        config: the config to store with the run (default: the training settings).
        store: a store URL (default ``TENSORWEAVE_STORE`` or the local SQLite file).
        handle: an already open ``RunHandle`` (the job plugin passes its own).
    """

    priority = 90  # after the values of the epoch are all set

    def __init__(
        self,
        name: str = "model.train",
        tags: Sequence[str] = (),
        config: Mapping[str, Any] | None = None,
        store: str | None = None,
        handle: Any = None,
    ) -> None:
        self.name = name
        self.tags = list(tags)
        self.config = dict(config) if config is not None else None
        self.store_url = config_url(store, "RecordRun.v1")
        self.handle = handle
        self._own = handle is None
        self.triggers = (on_train(at="start"), on_epoch(), on_train())

    def __call__(self, event: Event, state: TrainState) -> None:
        if state.model is not None and not is_chief(state.model.strategy):
            return  # several workers: the chief records the one run
        if event is Event.TRAIN_START and self.handle is None:
            from tensorweave_store.store import open_store

            config = self.config or {
                "run": {"name": self.name},
                "train": {"epochs": state.epochs, "seed": state.seed},
            }
            self.handle = open_store(self.store_url).start_run(
                config, name=self.name, kind="model.train", tags=self.tags
            )
        elif event is Event.EPOCH_END and self.handle is not None:
            values = {k: v for k, v in state.values.items()}
            self.handle.log_epoch(state.epoch, values)
        elif event is Event.TRAIN_END and self._own and self.handle is not None:
            last = state.history[-1] if state.history else {}
            self.handle.finish(
                "finished",
                summary={
                    "epochs": len(state.history),
                    "steps": int(state.step),
                    "valid": {k[4:]: v for k, v in last.items() if k.startswith("val_")},
                    "stopped": state.stop_reason or None,
                },
            )
            self.handle = None

    def on_failure(self, error: BaseException, state: TrainState) -> None:
        """Training raised: close the run this callback opened as ``interrupted`` (Ctrl-C) or
        ``failed`` with the error (a job's run is closed by the job's own hook)."""
        if not self._own or self.handle is None:
            return
        handle, self.handle = self.handle, None
        if isinstance(error, KeyboardInterrupt):
            handle.finish("interrupted", error="interrupted (Ctrl-C)")
        else:
            handle.finish("failed", error=redact(f"{type(error).__name__}: {error}"))
