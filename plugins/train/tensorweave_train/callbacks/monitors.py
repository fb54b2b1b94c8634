"""Callbacks that watch a value for improvement: ``EarlyStopping`` and ``ReduceLROnPlateau``.

Both run at each epoch's end (priority 10: after the values are set, before loggers and
checkpoints), with Keras's arguments and Keras's defaults (``EarlyStopping`` patience 0;
``ReduceLROnPlateau`` factor 0.1, patience 10, min_delta 1e-4, cooldown 0, min_lr 0;
``mode="auto"``: ``"max"`` for accuracy-like figures, else ``"min"``). Their memory (best
value, patience left) is saved in checkpoints, so a resumed run stops where an
uninterrupted one would. A ``monitor`` the loop does not report (``"val_acc"`` where the
figure is ``val_accuracy``, ``"val_loss"`` without validation data) is a
``MonitorError`` at the end of the first epoch, listing the figures there are.

>>> from tensorweave_train import TrainState, Event
>>> es = EarlyStopping(monitor="loss", patience=1)  # Keras's default: 0
>>> st = TrainState()
>>> for v in (1.0, 0.5, 0.7):
...     st.values["loss"] = v; es(Event.EPOCH_END, st)
>>> st.stop, st.stop_reason
(True, 'EarlyStopping: loss did not improve on 0.5 (epoch 1) for 1 epoch(s); weights not restored (restore_best_weights=False)')
"""

from __future__ import annotations

import difflib
from typing import Any

import tensorweave as tw
from tensorweave_train.loop.events import Callback, Event, TrainState, on_epoch, on_train
from tensorweave_train.loop.metrics import figure

__all__ = ["Monitor", "MonitorError", "EarlyStopping", "ReduceLROnPlateau"]

#: figures that grow as the model gets better (``mode="auto"`` maximises them, as Keras)
_HIGHER_IS_BETTER = ("acc", "auc", "precision", "recall", "f1", "iou", "top_k", "dice", "r2")


def _count(value: Any, arg: str, owner: str) -> int:
    """``value`` as an int ``>= 0``; else ``tw.ArgumentError`` naming it."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise tw.ArgumentError(f"{owner}: {arg} must be an integer >= 0, got {value!r}.")
    return int(value)


class MonitorError(tw.ArgumentError):
    """A ``monitor`` names a figure the training loop does not report."""


def auto_mode(monitor: str) -> str:
    """``"max"`` for an accuracy-like figure (``val_accuracy``, ``auc``, ``f1``...), else
    ``"min"``: Keras's ``mode="auto"``.

    >>> auto_mode("val_accuracy"), auto_mode("val_loss")
    ('max', 'min')
    """
    name = monitor.removeprefix("val_").lower()
    if "loss" in name or "error" in name:
        return "min"
    return "max" if any(word in name for word in _HIGHER_IS_BETTER) else "min"


class Monitor(Callback):
    """The base of callbacks that watch a value: did ``monitor`` improve by ``min_delta``
    in ``mode`` (``"min"``, ``"max"`` or ``"auto"``)? Its best value and patience go into
    checkpoints. A ``monitor`` missing from the figures of the first epoch's end is a
    ``MonitorError`` listing them."""

    def __init__(self, monitor: str, mode: str, min_delta: float, patience: int) -> None:
        name = type(self).__name__
        if mode not in ("min", "max", "auto"):
            raise tw.ArgumentError(
                f"{name}: mode must be 'auto', 'min' or 'max', got {mode!r}. Fix: mode='auto' "
                "(Keras's default: 'max' for accuracy-like figures, else 'min')."
            )
        if not isinstance(monitor, str) or not monitor:
            raise tw.ArgumentError(
                f"{name}: monitor must name a figure, e.g. 'val_loss', got {monitor!r}."
            )
        self.monitor, self.min_delta = monitor, abs(float(min_delta))
        self.mode = auto_mode(monitor) if mode == "auto" else mode
        self.patience = _count(patience, "patience", name)
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
        if value is None and state.epoch == 0:
            self._missing(state)
        return None if value is None else float(value)

    def _missing(self, state: TrainState) -> None:
        """Raise ``MonitorError``: ``monitor`` is not among the epoch's figures."""
        name = type(self).__name__
        figures = [k for k in state.values if k not in ("epoch", "step")]
        validation = any(k.startswith("val_") for k in figures)
        if self.monitor.startswith("val_") and not validation:
            why = (
                "the training has no validation data, so no val_ figure. Fix: give "
                "validation=(x, y) (or validation_split=0.2) to train, or "
                f"monitor={self.monitor.removeprefix('val_')!r}"
            )
        else:
            close = difflib.get_close_matches(self.monitor, figures, n=1, cutoff=0.5)
            why = "no figure has that name. Fix: " + (
                f"monitor={close[0]!r}" if close else "monitor= one of the figures"
            )
        raise MonitorError(
            f"{name}(monitor={self.monitor!r}): {why}. The figures at the end of epoch 1: "
            f"{', '.join(figures) or 'none'}."
        )

    def state_dict(self) -> dict[str, Any]:
        return {"best": self.best, "wait": self.wait}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.best, self.wait = state.get("best"), int(state.get("wait", 0))


class EarlyStopping(Monitor):
    """Stop when ``monitor`` has not improved for ``patience`` epochs, as Keras's.

    Args:
        monitor: a value name (``"val_loss"``, ``"loss"``, ``"val_<metric>"``).
        patience: epochs without improvement to tolerate (Keras's default 0: stop at the
            first epoch that does not improve).
        min_delta: the smallest change that counts as improvement.
        mode: ``"auto"`` (``"max"`` for accuracy-like figures, else ``"min"``), ``"min"``
            or ``"max"``.
        restore_best_weights: put back the variables of the best epoch at the end of
            training, whether it stopped early or not (Keras 3).
        verbose: 1 prints Keras's lines when stopping and restoring.

    The stop reason (``state.stop_reason``, shown by ``Model.train`` and the CLI) says
    which value, its best and at which epoch, and whether the weights were restored.
    """

    priority = 10

    def __init__(
        self,
        monitor: str = "val_loss",
        patience: int = 0,
        min_delta: float = 0.0,
        mode: str = "auto",
        restore_best_weights: bool = False,
        verbose: int = 0,
    ) -> None:
        super().__init__(monitor, mode, min_delta, patience)
        self.restore_best_weights = restore_best_weights
        self.verbose = int(verbose)
        self.best_epoch: int | None = None
        self._best_weights: list[Any] | None = None
        self._restored = False
        self.triggers = (on_epoch(), on_train(at="end"))

    def __call__(self, event: Event, state: TrainState) -> None:
        if event is Event.TRAIN_END:
            self._restore_at_end(state)
            return
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
            if self._restore(state):
                restored = f"; restored the weights of epoch {self.best_epoch}"
            since = f" (epoch {self.best_epoch})" if self.best_epoch is not None else ""
            if self.verbose:
                print(f"Epoch {state.epoch + 1}: early stopping")
            state.request_stop(
                f"EarlyStopping: {self.monitor} did not improve on {self.best:g}{since} for "
                f"{self.wait} epoch(s){restored}"
            )

    def _restore(self, state: TrainState) -> bool:
        """Put back the best epoch's variables (when kept); whether it did."""
        if self._best_weights is None or state.model is None:
            return False
        if self.verbose:
            print(f"Restoring model weights from the end of the best epoch: {self.best_epoch}.")
        for var, val in zip(state.model.variables, self._best_weights, strict=True):
            var.assign(val)
        self._restored = True
        return True

    def _restore_at_end(self, state: TrainState) -> None:
        """At the end of training (not stopped mid-epoch, to be resumed), the best epoch's
        weights, as Keras 3, when not restored already."""
        if self.restore_best_weights and not self._restored and state.epoch_step == 0:
            self._restore(state)

    def state_dict(self) -> dict[str, Any]:
        return {**super().state_dict(), "best_epoch": self.best_epoch}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        super().load_state_dict(state)
        self.best_epoch = state.get("best_epoch")


class ReduceLROnPlateau(Monitor):
    """Multiply the optimizer's base learning rate by ``factor`` when ``monitor`` has not
    improved for ``patience`` epochs (not below ``min_lr``; then wait ``cooldown`` epochs),
    as Keras's, with its defaults. A model with several optimizers has each one's rate
    reduced. ``verbose=1`` prints Keras's line at each reduction.
    """

    priority = 10

    def __init__(
        self,
        monitor: str = "val_loss",
        factor: float = 0.1,
        patience: int = 10,
        verbose: int = 0,
        mode: str = "auto",
        min_delta: float = 1e-4,
        cooldown: int = 0,
        min_lr: float = 0.0,
    ) -> None:
        super().__init__(monitor, mode, min_delta, patience)
        if not 0.0 < float(factor) < 1.0:
            raise tw.ArgumentError(
                f"ReduceLROnPlateau: factor must be in (0, 1), got {factor!r}: the rate is "
                "multiplied by it. Fix: e.g. factor=0.1 (Keras's default) or 0.5."
            )
        self.factor, self.min_lr = float(factor), float(min_lr)
        self.cooldown = _count(cooldown, "cooldown", "ReduceLROnPlateau")
        self.verbose = int(verbose)
        self._cooling = 0
        self.triggers = (on_epoch(),)

    def __call__(self, event: Event, state: TrainState) -> None:
        value = self._value(state)
        if value is None:
            return
        if self._cooling > 0:  # Keras's order: count the cooldown down, then compare
            self._cooling -= 1
            self.wait = 0
        if self._improved(value):
            self.best, self.wait = value, 0
            return
        if self._cooling > 0:
            return
        self.wait += 1
        if self.wait >= self.patience and state.model is not None:
            for optimizer in state.model.optimizers.values():
                lr = optimizer.learning_rate
                old = float(lr.numpy())
                if old > self.min_lr:
                    new = max(old * self.factor, self.min_lr)
                    lr.assign(new)
                    if self.verbose:
                        print(
                            f"\nEpoch {state.epoch + 1}: ReduceLROnPlateau reducing learning "
                            f"rate to {figure(float(lr.numpy()))}."
                        )
            for name, rate in state.model.learning_rates().items():
                state.set(name, rate)
            self.wait, self._cooling = 0, self.cooldown

    def state_dict(self) -> dict[str, Any]:
        return {**super().state_dict(), "cooling": self._cooling}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        super().load_state_dict(state)
        self._cooling = int(state.get("cooling", 0))
