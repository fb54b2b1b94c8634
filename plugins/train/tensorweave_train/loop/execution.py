"""One epoch of the training loop, several steps per compiled call (``steps_per_execution``).

``run_epoch(trainer, batches)`` reads the epoch's batches, groups consecutive batches of the
same shapes into chunks, stacks each chunk (one array per feed, batches on a new first
axis; a view, not a copy, when the batches lie end to end in one array, as ``loop.data``
yields them) and runs it with ``Steps.train_chunk``: one Python call, one conversion and one
check per chunk instead of per step. The sum of the losses and every figure are the same
as with one step per call (the same step body runs, in the same order).

How step events work with several steps per call:

- a callback that subscribes to ``STEP_START``/``STEP_END`` (``on_step(every=N)``) still
  runs at the exact step it asked for, seeing that step's weights, loss and counters, and
  may stop training there: a chunk ends right after each step such a trigger matches (and
  starts right at each step a ``STEP_START`` trigger matches). ``on_step(every=100)``
  costs nothing; ``on_step()`` (every step) means one step per call while it is attached;
- a callback whose ``exact_steps`` is ``False`` (``ProgressBar``: it only counts and
  shows) does not split chunks: after a chunk ran it gets ``STEP_START``/``STEP_END`` for
  each of its steps in order, with ``state.step``, ``state.epoch_step`` and
  ``state.loss`` set to that step's (the weights are the chunk's last). A stop it asks for
  takes effect after the chunk. This is Keras's rule for ``steps_per_execution``, where
  batch callbacks only run between executions;
- a callback that overrides ``wants`` (custom trigger logic the loop cannot foresee) gets
  one step per call.

A chunk also ends at the epoch's end, where the batch shapes change (the last, smaller
batch) and at ``steps_per_execution``. Models with sparse feeds or under a
``tf.distribute`` strategy run one step per call.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Protocol

import numpy as np
import tensorflow as tf

from tensorweave_train.loop.data import Batches
from tensorweave_train.loop.events import Callback, Event, TrainState
from tensorweave_train.loop.steps import Steps

__all__ = ["Executed", "EpochLoop", "run_epoch", "chunk_size", "AUTO_CHUNK_BYTES", "AUTO_MAX"]


class Executed(Protocol):
    """What an epoch's run reads of a ``Model``: its compiled steps and how many per call."""

    @property
    def steps(self) -> Steps: ...

    @property
    def steps_per_execution(self) -> int | str: ...


class EpochLoop(Protocol):
    """What an epoch's run reads and drives of the ``Trainer``."""

    @property
    def model(self) -> Executed: ...

    @property
    def state(self) -> TrainState: ...

    @property
    def stopped(self) -> bool: ...

    def listeners(self, event: Event) -> list[Callback]: ...

    def emit(self, event: Event, changed: str | None = None) -> None: ...

    def add_losses(self, losses: tf.Tensor) -> None: ...


AUTO_CHUNK_BYTES = 4 << 20  # "auto": stacked data per call stays under this
AUTO_MAX = 32  # "auto": at most this many steps per call


def _nbytes(value: Any) -> int:
    if isinstance(value, np.ndarray):
        return int(value.nbytes)
    if isinstance(value, tf.Tensor):
        return int(np.prod(value.shape.as_list() or [1])) * value.dtype.size
    return 1 << 30  # unknown: one step per call


def chunk_size(setting: int | str, batch: Sequence[Any]) -> int:
    """The steps per call for ``setting`` (an int or ``"auto"``) given a first ``batch``.

    >>> import numpy as np
    >>> chunk_size("auto", [np.zeros((128,), "int64")]), chunk_size(3, [np.zeros(1)])
    (32, 3)
    """
    if setting != "auto":
        return int(setting)
    size = sum(_nbytes(v) for v in batch)
    return max(1, min(AUTO_MAX, AUTO_CHUNK_BYTES // max(size, 1)))


def _exact(cb: Callback) -> bool:
    return bool(getattr(cb, "exact_steps", True))


def _room(callbacks: Sequence[Callback], step: int, limit: int) -> int:
    """How many steps, from ``step`` steps done, may run before an exact step event."""
    room = limit
    for cb in callbacks:
        if type(cb).wants is not Callback.wants:
            return 1
        for t in cb.triggers:
            n = max(1, t.every)
            if t.event is Event.STEP_END:
                room = min(room, n - step % n)  # end right after step s with s % n == 0
            elif t.event is Event.STEP_START:
                gap = (n - 1 - step) % n  # start right at step s with (s + 1) % n == 0
                room = min(room, gap or n)
    return max(room, 1)


def _same(a: Sequence[Any], b: Sequence[Any]) -> bool:
    return all(
        type(x) is type(y) and x.shape == y.shape and x.dtype == y.dtype
        for x, y in zip(a, b, strict=True)
    )


def _block(values: list[np.ndarray]) -> np.ndarray:
    """``np.stack(values)`` (arrays of one shape and dtype), without its copy when they are
    consecutive pieces of one C-contiguous array, as ``loop.data`` slices unshuffled data (and
    shuffled data, gathered a few batches at a time): then the block is a view of that
    memory (read-only), and the one copy left is the conversion to a tensor.

    >>> import numpy as np
    >>> x = np.arange(12.0).reshape(6, 2)
    >>> b = _block([x[0:2], x[2:4], x[4:6]])
    >>> b.shape, np.shares_memory(b, x), _block([x[0:2], x[4:6]]).tolist()
    ((3, 2, 2), True, [[[0.0, 1.0], [2.0, 3.0]], [[8.0, 9.0], [10.0, 11.0]]])
    """
    first = values[0]
    if len(values) == 1:
        return first[None]
    base = first.base
    size = first.nbytes
    start = first.__array_interface__["data"][0]
    if (
        base is not None
        and size > 0
        and first.flags.c_contiguous
        and all(
            v.base is base
            and v.flags.c_contiguous
            and v.__array_interface__["data"][0] == start + j * size
            for j, v in enumerate(values)
        )
    ):
        # one allocation (the same base) holds every piece, end to end: a view of it
        return np.lib.stride_tricks.as_strided(
            first, (len(values), *first.shape), (size, *first.strides), writeable=False
        )
    return np.stack(values)


def _stack(steps: Steps, group: list[Sequence[Any]]) -> list[Any] | None:
    """The group's batches stacked per feed (checked once per shape), or ``None`` when
    they cannot be (a value that is neither an array nor a dense tensor)."""
    first = group[0]
    if not all(isinstance(v, np.ndarray | tf.Tensor) for v in first):
        return None
    feeds = steps.model.feeds
    key = ("stack", *((type(v), v.dtype, v.shape[1:]) for v in first))
    if key not in steps.checked:
        if not steps.fits(steps.check(feeds, first)):
            return None  # the one-step path raises the signature mismatch
        steps.checked.add(key)
    out = []
    for i, f in enumerate(feeds):
        if isinstance(first[i], np.ndarray):
            out.append(tf.convert_to_tensor(_block([b[i] for b in group]), dtype=f.dtype))
        else:
            out.append(tf.cast(tf.stack([b[i] for b in group]), f.dtype))
    return out


def _stop_asked(trainer: EpochLoop) -> bool:
    """Whether a callback asked to stop (read afresh after each call that may have)."""
    return trainer.stopped


def _one_step(trainer: EpochLoop, batch: Sequence[Any], step_start: bool) -> None:
    state = trainer.state
    if step_start:
        trainer.emit(Event.STEP_START)
    state.loss = trainer.model.steps.train_one(batch)
    trainer.add_losses(state.loss)
    state.step += 1
    state.epoch_step += 1
    trainer.emit(Event.STEP_END)


def run_epoch(trainer: EpochLoop, batches: Batches) -> None:
    """Run the rest of the current epoch (``trainer.state``) over ``batches``."""
    state = trainer.state
    steps = trainer.model.steps
    step_cbs = {
        id(c): c for ev in (Event.STEP_START, Event.STEP_END) for c in trainer.listeners(ev)
    }
    exact = [c for c in step_cbs.values() if _exact(c)]
    replayed = len(exact) != len(step_cbs)
    step_start = bool(trainer.listeners(Event.STEP_START))
    it: Iterator[Sequence[Any]] = batches.epoch(state.epoch, skip=state.epoch_step)
    pending = next(it, None)
    if pending is None:
        return
    limit = chunk_size(trainer.model.steps_per_execution, pending) if steps.stackable else 1
    while pending is not None and not _stop_asked(trainer):
        room = _room(exact, state.step, limit) if limit > 1 else 1
        group = [pending]
        pending = None
        for batch in it:
            if len(group) >= room or not _same(group[0], batch):
                pending = batch
                break
            group.append(batch)
        stacked = _stack(steps, group) if limit > 1 else None
        if stacked is None:
            for batch in group:
                _one_step(trainer, batch, step_start)
                if _stop_asked(trainer):
                    return
            continue
        if step_start:
            trainer.emit(Event.STEP_START)  # the chunk's first step
        losses = steps.train_chunk(stacked)
        trainer.add_losses(losses)
        count = len(group)
        if not replayed:  # exact callbacks only: none matches before the chunk's last step
            state.step += count
            state.epoch_step += count
            state.loss = losses[-1]
            if step_cbs:
                trainer.emit(Event.STEP_END)
            continue
        _replay(trainer, losses, count, step_cbs.values(), step_start)


def _periods(callbacks: Iterable[Callback], event: Event) -> tuple[int, ...] | None:
    """The step periods at which ``callbacks`` want ``event``, or ``None`` when one of them
    decides by itself (overrides ``wants``) and must be asked at every step."""
    periods: set[int] = set()
    for cb in callbacks:
        if type(cb).wants is not Callback.wants:
            return None
        periods.update(max(1, t.every) for t in cb.triggers if t.event is event)
    return tuple(sorted(periods))


def _fires(periods: tuple[int, ...] | None, step: int) -> bool:
    return periods is None or any(step % n == 0 for n in periods)


def _replay(
    trainer: EpochLoop,
    losses: tf.Tensor,
    count: int,
    callbacks: Iterable[Callback],
    step_start: bool,
) -> None:
    """The step events of a chunk that ran, in step order, each with its step's counters and
    loss; only at the steps some trigger matches (a progress bar advancing every 16 steps
    costs 2 events per 32-step chunk, not 64)."""
    state = trainer.state
    starts = _periods(callbacks, Event.STEP_START) if step_start else ()
    ends = _periods(callbacks, Event.STEP_END)
    each: list[tf.Tensor] | None = None
    for j in range(count):
        step = state.step + 1  # the step being replayed, counted from 1
        start = j > 0 and starts != () and _fires(starts, step)
        end = _fires(ends, step)
        if start or end:
            if each is None:
                each = tf.unstack(losses)
            state.loss = each[j]
        if start:
            trainer.emit(Event.STEP_START)
        state.step = step
        state.epoch_step += 1
        if end:
            trainer.emit(Event.STEP_END)
    state.loss = losses[-1] if each is None else each[-1]
