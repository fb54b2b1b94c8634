"""A ``Stream`` is one split of a file dataset, read from its files through ``tf.data``.

A ``Stream`` never holds the data: each epoch it builds a ``tf.data`` pipeline that reads
its files (in parallel, interleaved, ``AUTOTUNE``), decodes inside the graph, shuffles in a
seeded order that depends only on ``(seed, epoch)``, batches and prefetches. It is a
mapping ``{field: Column}`` so it stands where a ``{field: array}`` split stands
(``DataSplits.train``); a column knows its field's dtype, shape and (when known) length,
and ``column[:n]`` is the first ``n`` examples (``[train] limit``). The training loop
(``tensorweave_train.loop.data.as_batches``) recognises columns of one stream and asks the
stream for batches (``Stream.batches``), without converting anything to numpy.

The errors are in ``files.errors``, the reads of files in ``files.sources`` and the
epoch order and resume position in ``files.position``.

>>> import tensorflow as tf
>>> s = Stream("numbers", lambda order: tf.data.Dataset.from_tensor_slices(
...     {"x": tf.constant([0.0, 1.0, 2.0, 3.0, 4.0])}), length=5)
>>> sorted(s), len(s["x"]), s["x"].shape
(['x'], 5, (None,))
>>> [b[0].numpy().tolist() for b in s.batches(["x"], batch_size=2)]
[[0.0, 1.0], [2.0, 3.0], [4.0]]
>>> [b[0].numpy().tolist() for b in s["x"][:3].stream.batches(["x"], batch_size=2)]
[[0.0, 1.0], [2.0]]
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw
from tensorweave_data.files.errors import (
    ON_ERROR,
    FileDataError,
    SkippedRecordsWarning,
    check_choice,
    tf_message,
)
from tensorweave_data.files.iterators import let_go
from tensorweave_data.files.position import check_position, epoch_seed, input_position
from tensorweave_data.files.sources import AUTOTUNE

__all__ = ["Stream", "Column"]


class Column:
    """One field of a ``Stream``: its dtype, shape (batch dimension ``None``) and length."""

    def __init__(self, stream: Stream, field: str) -> None:
        self.stream = stream
        self.field = field

    @property
    def spec(self) -> tf.TensorSpec:
        """The ``tf.TensorSpec`` of one example of this field."""
        spec: tf.TensorSpec = self.stream.element_spec[self.field]
        return spec

    @property
    def dtype(self) -> tf.DType:
        return self.spec.dtype

    @property
    def shape(self) -> tuple[int | None, ...]:
        """``(None, *example_shape)``, as a batch of the field."""
        return (None, *self.spec.shape.as_list())

    def __len__(self) -> int:
        return len(self.stream)

    def __getitem__(self, key: slice) -> Column:
        if not isinstance(key, slice) or key.start not in (None, 0) or key.step not in (None, 1):
            raise TypeError(f"a streamed column takes [:n] only, got {key!r}")
        if key.stop is None:
            return self
        return Column(self.stream.limited(int(key.stop)), self.field)

    def __repr__(self) -> str:
        return f"Column({self.stream.name!r}, {self.field!r}, {self.dtype.name}, {self.shape})"


class Stream(Mapping[str, Column]):
    """One split of a file dataset, streamed through ``tf.data`` (see the module docstring).

    Args:
        name: what the errors name (``"image_folder.v1 train"``).
        examples: ``examples(order)`` -> the ``tf.data.Dataset`` of example dicts of one
            epoch; ``order`` is an epoch's seed (shuffle the files/records with it) or
            ``None`` (the files' own order). Reads and decodes inside the graph.
        length: the number of examples, when known without reading them (else counted on
            first ``len``, by one streamed pass).
        shuffle_buffer: the examples shuffled in a seeded buffer after ``examples`` (0: the
            component shuffles its records itself).
        cache: ``None``, ``"memory"`` or a file path prefix: the decoded examples kept after
            the first epoch (then shuffled in a buffer of all of them).
        on_error: ``"error"`` (stop, naming the file: ``explain``) or ``"skip"``: drop the
            examples that fail to decode and warn with their count each epoch.
        explain: ``explain(error, first, count, order)`` -> a ``FileDataError`` naming the bad
            file among examples ``first..first+count`` of the epoch of ``order``, or ``None``.
        limit: only the first ``limit`` examples of each epoch.
        files: the files the stream reads, in their order (``files()``).
        subset: ``subset(indices)`` -> the same split read from only the files
            ``files()[i] for i in indices`` (what ``sharded`` uses to give each worker its
            own files); ``None``: the stream can only be sharded by example.
        decode: ``decode(record)`` -> the example dict, when ``examples`` yields cheap
            records (a path and a label, a serialized record, a row of strings) rather
            than examples: they are then shuffled, cut (``limit``) and skipped (a resumed
            epoch's consumed examples) before decoding, so a resume decodes nothing it
            skips. (With ``on_error = "skip"`` or a ``cache`` they are decoded first: which
            records fail is only known by decoding them.)
        decode_batch: ``decode`` takes batches of this many records (a dict of vectors,
            e.g. rows of strings parsed by elementwise ops) and its result is unbatched:
            the same examples in the same order, without tf.data's per-example overhead of
            a map. Only with ``on_error = "error"`` (a batch that fails fails whole, so a
            ``"skip"`` decodes record by record); ``None``: one record at a time.

    >>> import tensorflow as tf
    >>> rows = lambda order: tf.data.Dataset.from_tensor_slices({"v": ["1", "2", "3"]})
    >>> parse = lambda r: {"v": tf.strings.to_number(r["v"], tf.int64)}  # one row or many
    >>> s = Stream("rows", rows, decode=parse, decode_batch=2)
    >>> [int(e["v"]) for e in s.dataset(start=1)], s["v"].dtype.name
    ([2, 3], 'int64')
    """

    def __init__(
        self,
        name: str,
        examples: Callable[[int | None], tf.data.Dataset],
        *,
        length: int | None = None,
        shuffle_buffer: int = 0,
        cache: str | None = None,
        on_error: str = "error",
        explain: Callable[[Exception, int, int, int | None], Exception | None] | None = None,
        limit: int | None = None,
        files: Sequence[str] = (),
        subset: Callable[[list[int]], Stream] | None = None,
        decode: Callable[..., dict[str, tf.Tensor]] | None = None,
        decode_batch: int | None = None,
    ) -> None:
        check_choice(name, "on_error", on_error, ON_ERROR)
        self.name = name
        self._examples = examples
        self._length = length
        self.shuffle_buffer = int(shuffle_buffer)
        self.cache = cache
        self.on_error = on_error
        self._explain = explain
        self.limit = limit
        self._files = list(files)
        self._subset = subset
        self._decode = decode
        self.decode_batch = decode_batch
        #: ``"file"`` or ``"data"`` for a worker's shard (``sharded``), else ``None``
        self.sharding: str | None = None
        self._spec: dict[str, tf.TensorSpec] | None = None
        self._cached: tf.data.Dataset | None = None
        self._limited: dict[int, Stream] = {}
        #: examples skipped in the last epoch read (``on_error = "skip"``)
        self.skipped = 0

    # -- the mapping of columns -------------------------------------------------------------
    @property
    def element_spec(self) -> dict[str, tf.TensorSpec]:
        """``{field: tf.TensorSpec}`` of one example (nothing is read)."""
        if self._spec is None:
            self._spec = dict(self._decoded(self._examples(None)).element_spec)
        return self._spec

    def __getitem__(self, field: str) -> Column:
        if field not in self.element_spec:
            raise KeyError(field)
        return Column(self, field)

    def __iter__(self) -> Iterator[str]:
        return iter(self.element_spec)

    def __len__(self) -> int:
        if self._length is None:
            count = self._base(None).reduce(np.int64(0), lambda n, _: n + 1)
            self._length = int(count.numpy())
        return self._length if self.limit is None else min(self._length, self.limit)

    def __repr__(self) -> str:
        shapes = {k: c.shape for k, c in self.items()}
        return f"Stream({self.name!r}, {shapes}, length={self._length})"

    def files(self) -> list[str]:
        """The files this stream reads, in their unshuffled order."""
        return list(self._files)

    def limited(self, n: int) -> Stream:
        """The same stream, only its first ``n`` examples each epoch (one object per ``n``)."""
        if n not in self._limited:
            stream = Stream(
                self.name,
                self._examples,
                length=self._length,
                shuffle_buffer=self.shuffle_buffer,
                cache=self.cache,
                on_error=self.on_error,
                explain=self._explain,
                limit=n if self.limit is None else min(n, self.limit),
                files=self._files,
                subset=self._subset,
                decode=self._decode,
                decode_batch=self.decode_batch,
            )
            stream.sharding = self.sharding
            self._limited[n] = stream
        return self._limited[n]

    def sharded(self, num_workers: int, index: int) -> Stream:
        """Worker ``index``'s share of ``num_workers``: disjoint shares whose union is every
        example of an epoch exactly once.

        With at least as many files as workers (and a component that reads a subset of its
        files), the share is file-level: worker ``index`` reads only the files
        ``files()[index::num_workers]`` (``sharding == "file"``). Otherwise it is data-level:
        every worker reads the same files in the same seeded order per epoch and keeps the
        examples ``index, index + num_workers, ...`` of it (``sharding == "data"``), before
        the shuffle buffer. The shares may differ in size by the examples of a file (file
        level) or by one (data level); ``tensorweave_train.loop.data`` evens out the steps.

        >>> import tensorflow as tf
        >>> s = Stream("n", lambda order: tf.data.Dataset.from_tensor_slices(
        ...     {"x": tf.range(5)}), length=5)
        >>> [(w.sharding, len(w), [int(b[0][0]) for b in w.batches(["x"], batch_size=1)])
        ...  for w in (s.sharded(2, 0), s.sharded(2, 1))]
        [('data', 3, [0, 2, 4]), ('data', 2, [1, 3])]
        """
        n, i = int(num_workers), int(index)
        if n < 1 or not 0 <= i < n:
            raise tw.ArgumentError(
                f"{self.name}: worker {index} of {num_workers} does not exist. Fix: "
                "num_workers >= 1 and 0 <= index < num_workers."
            )
        if n == 1:
            return self
        label = f"{self.name} (worker {i} of {n})"
        if self._subset is not None and len(self._files) >= n:
            shard = self._subset(list(range(i, len(self._files), n)))
            shard.name, shard.sharding = label, "file"
        else:
            examples = self._examples

            def mine(order: int | None) -> tf.data.Dataset:
                return examples(order).shard(n, i)

            length = None
            if self._length is not None:
                length = self._length // n + (1 if i < self._length % n else 0)
            shard = Stream(
                label,
                mine,
                length=length,
                shuffle_buffer=self.shuffle_buffer,
                on_error=self.on_error,
                files=self._files,
                decode=self._decode,
                decode_batch=self.decode_batch,
            )
            shard.sharding = "data"
        shard.shuffle_buffer = self.shuffle_buffer
        shard.on_error = self.on_error
        shard.cache = self.cache
        if self.cache not in (None, "memory"):
            shard.cache = f"{self.cache}.worker{i}of{n}"
        # a [:n] cut of the whole epoch: each worker its share of the n
        shard.limit = None if self.limit is None else self.limit // n + (i < self.limit % n)
        return shard

    # -- reading ------------------------------------------------------------------------------
    @property
    def _late(self) -> bool:
        """Whether records are decoded after the shuffle, the cut and the skip (``decode``)."""
        return self._decode is not None and self.on_error == "error" and self.cache is None

    def _decoded(self, records: tf.data.Dataset) -> tf.data.Dataset:
        if self._decode is None:
            return records
        if self.decode_batch and self.on_error == "error":
            batches = records.batch(int(self.decode_batch))
            decoded = batches.map(self._decode, num_parallel_calls=AUTOTUNE, deterministic=True)
            return decoded.unbatch()
        return records.map(self._decode, num_parallel_calls=AUTOTUNE, deterministic=True)

    def _base(self, order: int | None) -> tf.data.Dataset:
        ds = self._examples(order)
        if not self._late:
            ds = self._decoded(ds)
        if self.on_error == "skip":
            ds = ds.ignore_errors()
        return ds

    def dataset(
        self, *, shuffle: bool = False, seed: int = 0, epoch: int = 0, start: int = 0
    ) -> tf.data.Dataset:
        """The examples of ``epoch`` (``{field: tensor}``, unbatched) from the ``start``-th
        on, in the order of ``(seed, epoch)`` when ``shuffle``, else in the files' order.
        The first ``start`` are skipped before decoding when the stream can (``decode``)."""
        order = epoch_seed(seed, epoch) if shuffle else None
        if self.cache is not None:
            if self._cached is None:
                base = self._base(None)
                self._cached = base.cache() if self.cache == "memory" else base.cache(self.cache)
            ds = self._cached
            if order is not None:
                buffer = self._length if self._length is not None else 10_000
                ds = ds.shuffle(max(buffer, 1), seed=order, reshuffle_each_iteration=False)
        else:
            ds = self._base(order)
            if order is not None and self.shuffle_buffer > 1:
                ds = ds.shuffle(self.shuffle_buffer, seed=order, reshuffle_each_iteration=False)
        if self.limit is not None:
            ds = ds.take(self.limit)
        if start:
            ds = ds.skip(int(start))
        return self._decoded(ds) if self._late else ds

    def position(
        self, epoch: int, batches: int, *, batch_size: int, shuffle: bool, seed: int
    ) -> dict[str, Any]:
        """Where an epoch read in ``batch_size`` batches stands after ``batches`` of them:
        what a checkpoint saves (``tensorweave_train.loop.data.Batches.position``) and
        ``check_position`` compares on resume (``files.position``).

        >>> import tensorflow as tf
        >>> s = Stream("n", lambda order: tf.data.Dataset.from_tensor_slices({"x": tf.range(5)}))
        >>> s.position(2, 1, batch_size=2, shuffle=True, seed=7)["examples"]
        2
        """
        return input_position(
            self.name,
            epoch,
            batches,
            batch_size=batch_size,
            shuffle=shuffle,
            seed=seed,
            files=len(self._files),
            skip="records" if self._late else "examples",
        )

    def check_position(self, saved: Mapping[str, Any], now: Mapping[str, Any]) -> None:
        """Raise ``FileDataError`` when a checkpoint's input position ``saved`` does not
        fit this stream read as ``now`` (``position``)."""
        check_position(self.name, saved, now)

    def batches(
        self,
        fields: Sequence[str],
        *,
        batch_size: int = 32,
        shuffle: bool = False,
        seed: int = 0,
        epoch: int = 0,
        skip: int = 0,
    ) -> Iterator[tuple[tf.Tensor, ...]]:
        """The batches of ``epoch`` from the ``skip``-th on, each a tuple of ``fields``,
        batched and prefetched by tf.data (the same batches for the same ``(seed, epoch)``)."""
        names = list(fields)
        missing = [f for f in names if f not in self.element_spec]
        if missing:
            raise FileDataError(
                f"{self.name}: no field {missing} (fields: {sorted(self.element_spec)}). Fix: "
                "name the model's inputs after the fields, or rename the fields (rename=...)."
            )
        ds = self.dataset(shuffle=shuffle, seed=seed, epoch=epoch, start=skip * int(batch_size))
        ds = ds.map(lambda ex: tuple(ex[f] for f in names), num_parallel_calls=AUTOTUNE)
        ds = ds.batch(int(batch_size)).prefetch(AUTOTUNE)
        seen = 0
        batch_index = skip
        order = epoch_seed(seed, epoch) if shuffle else None
        held = [iter(ds)]  # its only reference: let_go deletes it on another thread
        try:
            while True:
                try:
                    batch = next(held[0])
                except StopIteration:
                    break
                except (
                    tf.errors.InvalidArgumentError,
                    tf.errors.NotFoundError,
                    tf.errors.DataLossError,
                ) as err:
                    found = None
                    if self._explain is not None and self.cache is None:
                        found = self._explain(
                            err, batch_index * int(batch_size), int(batch_size), order
                        )
                    if found is not None:
                        raise found from None
                    raise FileDataError(
                        f"{self.name}: reading batch {batch_index} failed: "
                        f"{tf_message(err)}. Fix: repair or remove the bad file, or set "
                        'on_error = "skip".'
                    ) from err
                seen += int(batch[0].shape[0]) if batch else 0
                batch_index += 1
                yield batch
        finally:
            let_go(held)  # its deletion can wait seconds (files.iterators)
        if self.on_error == "skip" and not skip and self._length is not None:
            expected = len(self)
            self.skipped = max(expected - seen, 0)
            if self.skipped:
                warnings.warn(
                    f"{self.name}: skipped {self.skipped} example(s) that could not be read "
                    f"(on_error = 'skip'); {seen} read.",
                    SkippedRecordsWarning,
                    stacklevel=2,
                )
