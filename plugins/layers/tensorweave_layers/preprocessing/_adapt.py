"""The batches ``adapt(data)`` streams over: numpy arrays, tensors, a ``tf.data.Dataset`` or
any iterable of batches, read one batch at a time (never the whole data at once).

>>> import numpy as np
>>> [b.shape for b in batches(np.zeros((5, 2)), rank=2, owner="Normalization 'n'", size=2)]
[(2, 2), (2, 2), (1, 2)]
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

import numpy as np
import tensorflow as tf

import tensorweave as tw

__all__ = ["batches", "AdaptError", "Adaptable", "Adapter", "adapt_option"]

#: rows per batch when ``adapt`` is given one in-memory array
CHUNK = 4096


class AdaptError(tw.ArgumentError):
    """``adapt`` was given data it cannot learn from (none, the wrong kind, the wrong rank)."""


def _first(element: Any, owner: str) -> Any:
    """The features of a dataset element: ``x`` of ``(x, y)`` or ``(x, y, w)``."""
    if isinstance(element, tuple | list):
        return element[0]
    if isinstance(element, dict):
        raise AdaptError(
            f"{owner}.adapt got a dataset of dicts (keys {sorted(element)}); it adapts on one "
            "feature. Fix: map the dataset to that feature, e.g. ds.map(lambda d: d['age'])."
        )
    return element


def _as_array(batch: Any) -> np.ndarray:
    if isinstance(batch, tf.Tensor | tf.Variable):
        return batch.numpy()
    return np.asarray(batch)


def batches(
    data: Any, *, rank: int | None, owner: str, size: int = CHUNK, whole: bool = False
) -> Iterator[np.ndarray]:
    """Yield numpy batches of ``data`` with ``rank`` dimensions (batch first).

    An in-memory array is cut in batches of ``size`` rows (one batch when ``whole``); a
    dataset or iterable is read batch by batch, taking ``x`` from ``(x, y)`` elements; an
    unbatched dataset (elements one dimension short) is batched. Raises ``AdaptError``
    when no value at all came (naming the layer and the fix).
    """
    seen = False
    if isinstance(data, np.ndarray | tf.Tensor | tf.Variable | list) and not (
        isinstance(data, list) and data and isinstance(data[0], np.ndarray | tf.Tensor)
    ):
        array = _as_array(data)
        _check_rank(array, rank, owner)
        stream: Any = (
            [array]
            if whole or len(array) == 0
            else (array[i : i + size] for i in range(0, len(array), size))
        )
    elif isinstance(data, tf.data.Dataset):
        spec = tf.nest.flatten(_first(data.element_spec, owner))[0]
        if rank is not None and spec.shape.rank == rank - 1:
            data = data.batch(size)
        stream = (_as_array(_first(e, owner)) for e in data)
    elif hasattr(data, "__iter__") and not isinstance(data, str | bytes | dict):
        stream = (_as_array(_first(e, owner)) for e in data)
    else:
        raise AdaptError(
            f"{owner}.adapt cannot read {type(data).__name__}. Fix: pass a numpy array, a "
            "tensor, a batched tf.data.Dataset or an iterable of batches."
        )
    for batch in stream:
        _check_rank(batch, rank, owner)
        if batch.size:
            seen = True
            yield batch
    if not seen:
        raise AdaptError(
            f"{owner}.adapt got no data (an empty array or dataset): there is nothing to learn "
            "its state from. Fix: adapt on the training split, or give the state as options."
        )


def _check_rank(batch: np.ndarray, rank: int | None, owner: str) -> None:
    if rank is not None and batch.ndim != rank:
        raise AdaptError(
            f"{owner}.adapt expects batches of rank {rank} (batch first, as the layer's "
            f"input), got shape {batch.shape}. Fix: batch the data, or reshape it to the "
            "layer's input shape."
        )


class Adapter(Protocol):
    """One streaming pass of ``adapt``: ``update`` with each batch, then ``finish``."""

    def update(self, batch: np.ndarray) -> None:
        """Take one batch (numpy, batch first) into the running state."""

    def finish(self) -> None:
        """Write the learned state into the layer's variables (raises ``AdaptError`` when
        no value came)."""


def adapt_option(adapt: bool | None, given: bool, owner: str, state: str) -> bool:
    """Whether a job adapts the layer before training: ``adapt=None`` (the default) when
    its ``state`` was not ``given``; ``True`` asks for it (refused with the state given),
    ``False`` refuses it (the state must then be given).

    >>> adapt_option(None, False, "L", "mean="), adapt_option(False, True, "L", "mean=")
    (True, False)
    """
    if adapt is None:
        return not given
    if adapt and given:
        raise tw.ArgumentError(
            f"{owner}: adapt=true learns the state, but {state} gives it. Fix: drop {state} "
            "(to adapt on the training split), or set adapt=false."
        )
    if not adapt and not given:
        raise tw.ArgumentError(
            f"{owner}: adapt=false, but no {state} gives the state, so the layer would have "
            f"none. Fix: give {state}, or drop adapt=false to adapt on the training split."
        )
    return bool(adapt)


class Adaptable:
    """A layer whose state ``adapt`` learns, in one pass over batches, through an
    ``Adapter``. ``adapt_from_config`` tells a training job (``tensorweave train``) to adapt
    it on the training split before training (``runs.adapt`` of tensorweave-train)."""

    owner: str
    #: adapt it on the job's training split before training (the ``adapt`` option)
    adapt_from_config: bool = False
    #: the input rank batches must have (``None``: any), and whether an in-memory array is
    #: one batch (as Keras summarizes it)
    adapt_rank: int | None = None
    adapt_whole: bool = False

    def adapter(self) -> Adapter:
        """A new pass that learns this layer's state."""
        raise NotImplementedError

    def adapt(self, data: Any) -> None:
        """Learn the state from ``data`` in one pass, batch by batch, as Keras's ``adapt``:
        a numpy array or tensor (batch first), a ``tf.data.Dataset`` (``(x, y)`` elements use
        ``x``; an unbatched one is batched) or any iterable of batches. Replaces the previous
        state."""
        adapter = self.adapter()
        for batch in batches(data, rank=self.adapt_rank, owner=self.owner, whole=self.adapt_whole):
            adapter.update(batch)
        adapter.finish()

    def adapted(self) -> dict[str, Any]:
        """What the state holds, for a run's record (``{"mean": [...]}``, ``{"vocabulary_size": n}``)."""
        return {}


def no_data(owner: str) -> AdaptError:
    """The error of an ``adapt`` pass that saw no value."""
    return AdaptError(
        f"{owner}.adapt got no data (an empty array or dataset): there is nothing to learn "
        "its state from. Fix: adapt on the training split, or give the state as options."
    )
