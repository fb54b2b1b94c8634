"""The event model of the training loop: events, triggers, the loop state and ``Callback``.

The loop emits ``Event``\\s (train/epoch/step/validation start and end, and
``VALUE_CHANGE`` when a named value in ``TrainState.values`` changes). A callback lists
``Trigger``\\s saying which events it wants (every N steps or epochs, at start or end, on a
change of one value) and a ``priority``: on each event, matching callbacks run in
increasing priority (ties keep the order they were given in).

>>> seen = []
>>> cb = LambdaCallback(lambda ev, st: seen.append((ev.name, st.step)), on_step(every=2))
>>> cb.wants(Event.STEP_END, TrainState(step=4)), cb.wants(Event.STEP_END, TrainState(step=3))
(True, False)
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, Self

import tensorweave as tw

if TYPE_CHECKING:
    import tensorflow as tf

    from tensorweave_train.optimizers import Optimizer

__all__ = [
    "TrainedModel",
    "Snapshots",
    "Event",
    "Trigger",
    "TrainState",
    "Callback",
    "LambdaCallback",
    "on_train",
    "on_epoch",
    "on_step",
    "on_change",
    "on_validation",
]


class Event(enum.Enum):
    """What just happened in the loop."""

    TRAIN_START = "train_start"
    TRAIN_END = "train_end"
    EPOCH_START = "epoch_start"
    EPOCH_END = "epoch_end"
    STEP_START = "step_start"
    STEP_END = "step_end"
    VALUE_CHANGE = "value_change"
    VALIDATION_START = "validation_start"  # Keras's on_test_begin, during training
    VALIDATION_END = "validation_end"


@dataclass(frozen=True)
class Trigger:
    """When a callback runs: on ``event``, every ``every`` steps/epochs, or when the value
    ``value`` changes (for ``Event.VALUE_CHANGE``; ``None`` = any value)."""

    event: Event
    every: int = 1
    value: str | None = None

    def matches(self, event: Event, state: TrainState, changed: str | None = None) -> bool:
        if event is not self.event:
            return False
        if event is Event.STEP_END:
            return state.step % self.every == 0
        if event is Event.STEP_START:
            return (state.step + 1) % self.every == 0
        if event in (Event.EPOCH_START, Event.EPOCH_END):
            return (state.epoch + 1) % self.every == 0
        if event is Event.VALUE_CHANGE:
            return self.value is None or self.value == changed
        return True


def on_train(at: str = "end") -> Trigger:
    """At the start or end (``at="start"|"end"``) of ``train``."""
    return Trigger(Event.TRAIN_START if at == "start" else Event.TRAIN_END)


def on_epoch(every: int = 1, at: str = "end") -> Trigger:
    """At the start or end of every ``every``-th epoch."""
    return Trigger(Event.EPOCH_START if at == "start" else Event.EPOCH_END, every=every)


def on_step(every: int = 1, at: str = "end") -> Trigger:
    """At the start or end of every ``every``-th step (``state.step`` counts done steps)."""
    return Trigger(Event.STEP_START if at == "start" else Event.STEP_END, every=every)


def on_validation(at: str = "end") -> Trigger:
    """Before or after (``at="start"|"end"``) the validation at an epoch's end."""
    return Trigger(Event.VALIDATION_START if at == "start" else Event.VALIDATION_END)


def on_change(value: str | None = None) -> Trigger:
    """When ``state.values[value]`` changes (any value with ``None``)."""
    return Trigger(Event.VALUE_CHANGE, value=value)


class TrainedModel(Protocol):
    """What callbacks read of the model being trained (``TrainState.model``: a ``Model``)."""

    @property
    def name(self) -> str: ...

    @property
    def strategy(self) -> tf.distribute.Strategy: ...

    @property
    def layers(self) -> list[tw.Layer]: ...

    @property
    def variables(self) -> tuple[tf.Variable, ...]: ...

    @property
    def trainable_variables(self) -> tuple[tf.Variable, ...]: ...

    @property
    def optimizers(self) -> dict[str, Optimizer]: ...

    @property
    def train_function(self) -> Any: ...

    def learning_rates(self) -> dict[str, float]: ...


class Snapshots(Protocol):
    """What callbacks read of the loop (``TrainState.trainer``: a ``Trainer``)."""

    def snapshot(self, *, epoch_end: bool = False) -> dict[str, Any]:
        """The loop's position and memory, for a checkpoint (``epoch_end``: as at the start
        of the next epoch)."""
        ...


@dataclass
class TrainState:
    """What the loop knows; callbacks read it and may set ``stop``/``values``.

    Attributes:
        epoch: the current epoch (0-based). step: optimisation steps done in total.
        epoch_step: batches consumed in the current epoch (the data position).
        loss: the last step's loss (a tensor; ``float(state.loss)`` syncs).
        values: named values (``loss``, ``val_loss``, ``val_<metric>``, ``learning_rate``…);
            set them with ``set`` so ``VALUE_CHANGE`` fires.
        history: one dict of values per finished epoch.
        stop: set ``True`` to end training after the current step; ``stop_reason`` says why.
    """

    epoch: int = 0
    step: int = 0
    epoch_step: int = 0
    epochs: int = 0
    steps_per_epoch: int | None = None
    loss: Any = None
    loss_sum: Any = 0.0
    values: dict[str, float] = field(default_factory=dict)
    history: list[dict[str, float]] = field(default_factory=list)
    stop: bool = False
    stop_reason: str = ""
    changed: str | None = None
    seed: int = 0
    model: TrainedModel | None = None
    trainer: Snapshots | None = None
    emit: Callable[[Event, str | None], None] | None = None

    def set(self, name: str, value: float) -> None:
        """Set a named value; fires ``VALUE_CHANGE`` when it differs from the previous one."""
        old = self.values.get(name)
        self.values[name] = value
        if old != value and self.emit is not None:
            self.changed = name
            self.emit(Event.VALUE_CHANGE, name)

    def request_stop(self, reason: str) -> None:
        """Ask the loop to stop after the current step."""
        self.stop = True
        self.stop_reason = reason


class Callback:
    """Base class: set ``triggers`` and ``priority``; implement ``__call__(event, state)``.

    ``state_dict``/``load_state_dict`` (JSON-able) let checkpoints carry a callback's
    memory (best value, patience left) across a crash. A keyword the constructor does
    not take raises ``tw.ArgumentError`` naming the parameters and the closest match.
    """

    triggers: tuple[Trigger, ...] = ()
    priority: int = 0
    # False: step events may arrive after a multi-step call rather than at the step itself
    # (see ``loop.execution``); True: the loop ends a call at every step this callback wants.
    exact_steps: bool = True
    # True: this callback is the NaN policy (``StopOnNaN``): the loop's own NaN/inf warnings
    # (the data, the epoch's loss and weights: ``loop.nonfinite``) stay quiet.
    guards_non_finite: bool = False

    def __new__(cls, *args: Any, **kwargs: Any) -> Self:
        tw.check_keywords(cls, kwargs)  # the words a config's unknown key gets
        return super().__new__(cls)

    def wants(self, event: Event, state: TrainState, changed: str | None = None) -> bool:
        """Whether any trigger matches this event."""
        return any(t.matches(event, state, changed) for t in self.triggers)

    def __call__(self, event: Event, state: TrainState) -> None:
        raise NotImplementedError

    def state_dict(self) -> dict[str, Any]:
        """What to save in a checkpoint (JSON-serialisable)."""
        return {}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore what ``state_dict`` returned."""

    def on_failure(self, error: BaseException, state: TrainState) -> None:
        """``Model.train`` raised ``error`` (a ``KeyboardInterrupt`` on Ctrl-C): no
        ``TRAIN_END`` will come, so close what ``TRAIN_START`` opened (a store's run, a
        file). Called once per callback, then the error propagates; an error raised here is
        ignored so it cannot hide the first."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(priority={self.priority})"


class LambdaCallback(Callback):
    """A function ``fn(event, state)`` run on ``triggers``.

    >>> LambdaCallback(print, on_epoch(), priority=5).priority
    5
    """

    def __init__(
        self, fn: Callable[[Event, TrainState], Any], *triggers: Trigger, priority: int = 0
    ) -> None:
        self.fn = fn
        self.triggers = triggers or (on_epoch(),)
        self.priority = priority

    def __call__(self, event: Event, state: TrainState) -> None:
        self.fn(event, state)
