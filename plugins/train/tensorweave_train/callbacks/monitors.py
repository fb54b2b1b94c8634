"""Callbacks that watch a value for improvement: ``EarlyStopping`` and ``ReduceLROnPlateau``.

Both run at each epoch's end (priority 10: after the values are set, before loggers and
checkpoints), with Keras's arguments; their memory (best value, patience left) is saved
in checkpoints, so a resumed run stops where an uninterrupted one would.

>>> from tensorweave_train import TrainState, Event
>>> es = EarlyStopping(monitor="loss", patience=1)
>>> st = TrainState()
>>> for v in (1.0, 0.5, 0.7):
...     st.values["loss"] = v; es(Event.EPOCH_END, st)
>>> st.stop, st.stop_reason
(True, 'EarlyStopping: loss did not improve on 0.5 (epoch 1) for 1 epoch(s); weights not restored (restore_best_weights=False)')
"""

from __future__ import annotations

from typing import Any

from tensorweave_train.loop.events import Callback, Event, TrainState, on_epoch

__all__ = ["Monitor", "EarlyStopping", "ReduceLROnPlateau"]


class Monitor(Callback):
    """The base of callbacks that watch a value: did ``monitor`` improve by ``min_delta``
    in ``mode`` (``"min"`` or ``"max"``)? Its best value and patience go into checkpoints."""

    def __init__(self, monitor: str, mode: str, min_delta: float, patience: int) -> None:
        if mode not in ("min", "max"):
            raise ValueError(f"{type(self).__name__}: mode must be 'min' or 'max', got {mode!r}.")
        self.monitor, self.mode, self.min_delta, self.patience = monitor, mode, min_delta, patience
        self.best: float | None = None
        self.wait = 0

    def _improved(self, value: float) -> bool:
        if self.best is None:
            return True
        if self.mode == "min":
            return value < self.best - self.min_delta
        return value > self.best + self.min_delta

    def _value(self, state: TrainState) -> float | None:
        value = state.values.get(self.monitor)
        return None if value is None else float(value)

    def state_dict(self) -> dict[str, Any]:
        return {"best": self.best, "wait": self.wait}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.best, self.wait = state.get("best"), int(state.get("wait", 0))


class EarlyStopping(Monitor):
    """Stop when ``monitor`` has not improved for ``patience`` epochs.

    Args:
        monitor: a value name (``"val_loss"``, ``"loss"``, ``"val_<metric>"``).
        patience: epochs without improvement to tolerate.
        min_delta: the smallest change that counts as improvement.
        mode: ``"min"`` or ``"max"``.
        restore_best_weights: put back the variables of the best epoch when stopping
            (Keras's name).

    The stop reason (``state.stop_reason``, shown by ``Model.train`` and the CLI) says
    which value, its best and at which epoch, and whether the weights were restored.
    """

    priority = 10

    def __init__(
        self,
        monitor: str = "val_loss",
        patience: int = 3,
        min_delta: float = 0.0,
        mode: str = "min",
        restore_best_weights: bool = False,
    ) -> None:
        super().__init__(monitor, mode, min_delta, patience)
        self.restore_best_weights = restore_best_weights
        self.best_epoch: int | None = None
        self._best_weights: list[Any] | None = None
        self.triggers = (on_epoch(),)

    def __call__(self, event: Event, state: TrainState) -> None:
        value = self._value(state)
        if value is None:
            return
        if self._improved(value):
            self.best, self.wait, self.best_epoch = value, 0, state.epoch + 1
            if self.restore_best_weights and state.model is not None:
                self._best_weights = [v.numpy() for v in state.model.variables]
            return
        self.wait += 1
        if self.wait >= self.patience:
            restored = "; weights not restored (restore_best_weights=False)"
            if self._best_weights is not None and state.model is not None:
                for var, val in zip(state.model.variables, self._best_weights):
                    var.assign(val)
                restored = f"; restored the weights of epoch {self.best_epoch}"
            since = f" (epoch {self.best_epoch})" if self.best_epoch is not None else ""
            state.request_stop(
                f"EarlyStopping: {self.monitor} did not improve on {self.best:g}{since} for "
                f"{self.wait} epoch(s){restored}"
            )

    def state_dict(self) -> dict[str, Any]:
        return {**super().state_dict(), "best_epoch": self.best_epoch}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        super().load_state_dict(state)
        self.best_epoch = state.get("best_epoch")


class ReduceLROnPlateau(Monitor):
    """Multiply the optimizer's base learning rate by ``factor`` when ``monitor`` has not
    improved for ``patience`` epochs (not below ``min_lr``; then wait ``cooldown`` epochs).
    A model with several optimizers has each one's rate reduced.
    """

    priority = 10

    def __init__(
        self,
        monitor: str = "val_loss",
        factor: float = 0.1,
        patience: int = 2,
        min_lr: float = 0.0,
        cooldown: int = 0,
        min_delta: float = 0.0,
        mode: str = "min",
    ) -> None:
        super().__init__(monitor, mode, min_delta, patience)
        self.factor, self.min_lr, self.cooldown = factor, min_lr, cooldown
        self._cooling = 0
        self.triggers = (on_epoch(),)

    def __call__(self, event: Event, state: TrainState) -> None:
        value = self._value(state)
        if value is None:
            return
        if self._cooling > 0:
            self._cooling -= 1
            self.wait = 0
        if self._improved(value):
            self.best, self.wait = value, 0
            return
        self.wait += 1
        if self.wait >= self.patience and state.model is not None:
            for optimizer in state.model.optimizers.values():
                lr = optimizer.learning_rate
                lr.assign(max(float(lr.numpy()) * self.factor, self.min_lr))
            for name, rate in state.model.learning_rates().items():
                state.set(name, rate)
            self.wait, self._cooling = 0, self.cooldown

    def state_dict(self) -> dict[str, Any]:
        return {**super().state_dict(), "cooling": self._cooling}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        super().load_state_dict(state)
        self._cooling = int(state.get("cooling", 0))
