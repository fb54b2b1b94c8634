"""Batches from numpy arrays, Python iterables or ``tf.data.Dataset``, in a resumable order.

``as_batches(data, feeds, ...)`` returns a ``Batches`` whose ``epoch(e, skip=k)`` yields
the batches of epoch ``e`` from the ``k``-th on, each a tuple with one value per feed
layer. The order of an epoch depends only on ``(seed, e)``, so a run resumed at batch ``k``
sees exactly the batches an uninterrupted run would have.

Accepted data:

- a dict ``{input_name: array}`` or a tuple of arrays (one per feed, in order), cut into
  ``batch_size`` batches, shuffled per epoch when ``shuffle=True`` (a few batches gathered
  at once, see ``GATHER_BYTES``);
- a ``tf.data.Dataset`` of such dicts/tuples, already batched (skip = ``dataset.skip``;
  shuffle it with a fixed seed and ``reshuffle_each_iteration=False`` for exact resume);
- the columns of one stream (a dataset read from files, ``tensorweave_data.files``): a
  mapping ``{name: column}`` whose values have ``.stream`` and ``.field``, the stream
  giving ``batches(fields, batch_size=, shuffle=, seed=, epoch=, skip=)``: tf.data batches
  and prefetches them, in an order that depends only on ``(seed, epoch)``; nothing is
  converted to numpy;
- a callable returning an iterable of batches (called once per epoch), or a re-iterable
  such as a list of batches. A one-shot iterator serves one epoch only.

>>> import numpy as np
>>> import tensorweave as tw
>>> x = tw.Input(n_units=1, name="x")
>>> b = as_batches({"x": np.arange(5.0)[:, None]}, [x], batch_size=2)
>>> [batch[0].shape[0] for batch in b.epoch(0)], len(b)
([2, 2, 1], 3)
>>> [batch[0][0, 0] for batch in b.epoch(0, skip=2)]
[np.float64(4.0)]

``split_validation(data, fraction)`` is Keras's ``validation_split``: the last fraction of
array data held out (``Model.train(validation_split=...)``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Sized
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw

__all__ = [
    "Batches",
    "as_batches",
    "order_batch",
    "split_validation",
    "stream_of",
    "GATHER_BYTES",
    "GATHER_MAX",
]

# Shuffled arrays are gathered (one fancy-indexing copy) up to this many bytes and batches
# at a time, and yielded as consecutive slices of the gathered block, which
# ``loop.execution``'s multi-step calls then stack without a second copy. The batches are the
# same whatever these are: the order depends only on ``(seed, epoch)``.
GATHER_BYTES = 4 << 20
GATHER_MAX = 32


def order_batch(batch: Any, feeds: Sequence[tw.Layer]) -> tuple[Any, ...]:
    """Put one batch (dict by input name, tuple, or a single value) in feed order."""
    if isinstance(batch, Mapping):
        missing = [f.name for f in feeds if f.name not in batch]
        if missing:
            raise KeyError(
                f"batch has keys {sorted(map(str, batch))} but the model needs {missing}. "
                f"Fix: name the arrays after the Input layers {[f.name for f in feeds]}."
            )
        return tuple(batch[f.name] for f in feeds)
    if isinstance(batch, (tuple, list)):
        if len(batch) < len(feeds):
            raise ValueError(
                f"batch has {len(batch)} values but the model takes {len(feeds)} "
                f"({[f.name for f in feeds]}). Fix: pass one array per input/target, in order."
            )
        return tuple(batch[: len(feeds)])
    if len(feeds) == 1:
        return (batch,)
    raise TypeError(
        f"a batch of type {type(batch).__name__} cannot feed {len(feeds)} inputs "
        f"{[f.name for f in feeds]}; pass a dict or tuple."
    )


class Batches:
    """A resumable source of batches: ``epoch(e, skip)`` and (when known) ``len``.

    ``position(e, k)`` is where the input stands after ``k`` batches of epoch ``e`` (what
    a checkpoint saves: the epoch, the batches consumed and, for a stream, the examples,
    the batch size and the seed of the epoch's order); ``check(saved, e, k)`` raises when
    a checkpoint's saved position does not fit this data (a stream read with another batch
    size, seed or set of files would resume at another example)."""

    def __init__(
        self,
        make: Callable[[int, int], Iterator[tuple[Any, ...]]],
        length: int | None = None,
        *,
        position: Callable[[int, int], dict[str, Any]] | None = None,
        check: Callable[[dict[str, Any], dict[str, Any]], None] | None = None,
    ) -> None:
        self._make = make
        self._length = length
        self._position = position
        self._check = check

    def position(self, epoch: int, consumed: int) -> dict[str, Any]:
        """Where the input stands after ``consumed`` batches of ``epoch`` (JSON-able).

        >>> Batches(lambda e, s: iter([])).position(1, 3)
        {'epoch': 1, 'batches': 3}
        """
        if self._position is None:
            return {"epoch": int(epoch), "batches": int(consumed)}
        return self._position(epoch, consumed)

    def check(self, saved: dict[str, Any] | None, epoch: int, consumed: int) -> None:
        """Raise when a checkpoint's input position ``saved`` does not fit this data."""
        if saved and self._check is not None:
            self._check(saved, self.position(epoch, consumed))

    def epoch(self, epoch: int, skip: int = 0) -> Iterator[tuple[Any, ...]]:
        """The batches of ``epoch``, starting after ``skip`` already consumed ones."""
        return self._make(epoch, skip)

    def __len__(self) -> int:
        if self._length is None:
            raise TypeError("this data source does not know its number of batches")
        return self._length

    @property
    def length(self) -> int | None:
        """The number of batches per epoch, or ``None`` when unknown."""
        return self._length


def _is_arrays(data: Any) -> bool:
    values = data.values() if isinstance(data, Mapping) else data
    if not isinstance(data, (Mapping, tuple)):
        return isinstance(data, np.ndarray)
    values = list(values)
    return bool(values) and all(isinstance(v, np.ndarray) for v in values)


def stream_of(data: Any) -> Any:
    """The stream whose columns ``data`` holds (a mapping or tuple of them), else ``None``."""
    values = list(data.values()) if isinstance(data, Mapping) else data
    if not isinstance(values, (list, tuple)) or not values:
        return None
    if not all(hasattr(v, "stream") and hasattr(v, "field") for v in values):
        return None
    streams = {id(v.stream) for v in values}
    if len(streams) != 1:
        raise ValueError(
            "the data mixes fields of different streams (or of different [:n] cuts of one); "
            "Fix: take every field from the same split of one dataset."
        )
    return values[0].stream


def as_batches(
    data: Any,
    feeds: Sequence[tw.Layer],
    *,
    batch_size: int | None = None,
    shuffle: bool = False,
    seed: int = 0,
) -> Batches:
    """Turn ``data`` into ``Batches`` for ``feeds`` (see the module docstring)."""
    if isinstance(data, Batches):
        return data
    if _is_arrays(data):
        # (N,) arrays feed an Input of one value per example, (None, 1), as Keras's
        arrays = tuple(
            a[:, None] if a.ndim == 1 and tuple(f.shape) == (None, 1) else a
            for f, a in zip(feeds, order_batch(data, feeds), strict=False)
        )
        n = len(arrays[0])
        for f, a in zip(feeds, arrays):
            if len(a) != n:
                raise ValueError(
                    f"array for {f.name!r} has {len(a)} rows, the first has {n}; all inputs "
                    "and targets need the same number of examples."
                )
        size = int(batch_size or 32)
        length = -(-n // size)

        row_bytes = sum(a[:1].nbytes for a in arrays)
        gather = max(1, min(GATHER_MAX, GATHER_BYTES // max(size * row_bytes, 1)))

        def make_arrays(epoch: int, skip: int) -> Iterator[tuple[Any, ...]]:
            if not shuffle:
                for b in range(skip, length):
                    yield tuple(a[b * size : (b + 1) * size] for a in arrays)
                return
            order = np.random.default_rng([seed, epoch]).permutation(n)
            for first in range(skip, length, gather):
                # a few batches gathered at once: the loop stacks them without a copy
                rows = order[first * size : (first + gather) * size]
                block = tuple(a[rows] for a in arrays)
                for b in range(0, len(rows), size):
                    yield tuple(x[b : b + size] for x in block)

        return Batches(make_arrays, length)

    stream = stream_of(data)
    if stream is not None:
        fields = [c.field for c in order_batch(data, feeds)]
        size = int(batch_size or 32)
        try:
            n_batches: int | None = -(-len(stream) // size)
        except TypeError:
            n_batches = None

        def make_stream(epoch: int, skip: int) -> Iterator[tuple[Any, ...]]:
            return iter(
                stream.batches(
                    fields, batch_size=size, shuffle=shuffle, seed=seed, epoch=epoch, skip=skip
                )
            )

        def where(epoch: int, consumed: int) -> dict[str, Any]:
            found: dict[str, Any] = stream.position(
                epoch, consumed, batch_size=size, shuffle=shuffle, seed=seed
            )
            return found

        return Batches(make_stream, n_batches, position=where, check=stream.check_position)

    if isinstance(data, tf.data.Dataset):
        card = int(data.cardinality().numpy())

        def make_ds(epoch: int, skip: int) -> Iterator[tuple[Any, ...]]:
            ds = data.skip(skip) if skip else data
            for batch in ds:
                yield order_batch(batch, feeds)

        return Batches(make_ds, card if card >= 0 else None)

    if callable(data):
        factory: Callable[[], Iterable[Any]] = data

        def make_call(epoch: int, skip: int) -> Iterator[tuple[Any, ...]]:
            for batch in itertools.islice(iter(factory()), skip, None):
                yield order_batch(batch, feeds)

        return Batches(make_call)

    if isinstance(data, Iterable):
        one_shot = iter(data) is data
        known = len(data) if isinstance(data, Sized) else None
        used = [False]

        def make_iter(epoch: int, skip: int) -> Iterator[tuple[Any, ...]]:
            if one_shot and used[0]:
                raise ValueError(
                    "the data is a one-shot iterator (a generator?) and was used up by an "
                    "earlier epoch. Fix: pass a list, a tf.data.Dataset, or a function that "
                    "returns a fresh iterable each epoch."
                )
            used[0] = True
            for batch in itertools.islice(iter(data), skip, None):
                yield order_batch(batch, feeds)

        return Batches(make_iter, known)
    raise TypeError(
        f"cannot make batches from {type(data).__name__}: pass a dict/tuple of numpy arrays "
        "with batch_size, a tf.data.Dataset, a list of batches or a function returning one."
    )


def split_validation(data: Any, fraction: float) -> tuple[Any, Any]:
    """Keras's ``validation_split``: the last ``fraction`` of the examples (before any
    shuffling) held out for validation; ``data`` is ``{name: array}`` or a tuple of arrays.

    >>> import numpy as np
    >>> held = split_validation({"x": np.arange(10)}, 0.2)
    >>> held[0]["x"].tolist(), held[1]["x"].tolist()
    ([0, 1, 2, 3, 4, 5, 6, 7], [8, 9])
    """
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
