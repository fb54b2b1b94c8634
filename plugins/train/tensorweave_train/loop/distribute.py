"""The loop under a ``tf.distribute`` strategy: who gets which examples, who writes, and one
state for every worker after a restore.

- Sharding (``SHARDS``, ``shard_mode``): with ``"data"`` every worker reads the same batches
  in the same seeded order and each replica trains on its own consecutive slice of each
  global batch (``replica_share``), so a run equals one process with the same global batch;
  with ``"off"`` the loop does not shard: each worker's batches are its own (data each worker
  reads for itself), all of a batch goes to that worker's replicas and the global batch is
  the workers' batches together. ``"auto"`` takes ``"data"`` for arrays and the dataset's own
  ``tf.data`` auto-shard policy for a ``tf.data.Dataset`` (``AUTO``/``DATA`` -> ``"data"``,
  ``OFF`` -> ``"off"``).
- File datasets (``worker_batches``): under a multi-worker strategy with ``"auto"``, a stream
  read from files (``tensorweave_data.files``) is read through ``Stream.sharded(workers,
  index)``: each worker reads only its own share, in batches of its share of the global batch
  (``worker_batch``), and every worker runs the same number of steps per epoch: the fewest
  batches any worker has (``agree``). So each example is trained on at most once per epoch,
  exactly once when the shares have the same number of batches; a worker with more batches
  leaves its last ones out (said once, with the count), and no worker waits for ever in the
  gradient all-reduce.
- The chief (``is_chief``): the one worker that writes checkpoints, logs and TensorBoard.
- ``restore``: on several workers only the chief reads the checkpoint; it then sends the
  variables and the loop's position to the others (``share_from_chief``), so every worker
  continues from the same state without reading the run directory (which need not be on
  storage the other hosts see).

>>> import tensorflow as tf
>>> strategy = tf.distribute.get_strategy()
>>> is_chief(strategy), worker_count(strategy), shard_mode({"x": None}, "auto")
(True, 1, 'data')
"""

from __future__ import annotations

import itertools
import json
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw
from tensorweave_train.loop.checkpoints import Checkpointer
from tensorweave_train.loop.data import Batches, stream_of

__all__ = [
    "SHARDS",
    "shard_mode",
    "replica_share",
    "is_chief",
    "worker_count",
    "worker_index",
    "worker_batch",
    "worker_batches",
    "agree",
    "restore",
    "share_from_chief",
]

SHARDS = ("auto", "data", "off")
_SHARED_POSITION = ("epoch", "examples", "seed", "order")  # the same on every worker
_POLICIES = {"AUTO": "data", "DATA": "data", "OFF": "off"}


def shard_mode(data: Any, setting: str = "auto") -> str:
    """How the loop shards ``data`` over the workers, ``"data"`` or ``"off"`` (see the
    module docstring), for the ``[train] shard`` ``setting``."""
    if setting not in SHARDS:
        raise tw.ArgumentError(
            f"shard={setting!r} is not a sharding. Fix: one of {', '.join(SHARDS)} "
            "(docs/distributed.md)."
        )
    if setting != "auto":
        return setting
    if not isinstance(data, tf.data.Dataset):
        return "data"
    policy = data.options().experimental_distribute.auto_shard_policy
    found = _POLICIES.get(policy.name)
    if found is None:
        raise tw.ArgumentError(
            f"the dataset asks for the {policy.name} auto-shard policy, which the loop does not "
            "do (it shards batches, not files). Fix: shard the files per worker yourself "
            "(dataset.shard(workers, index)) and train with shard='off', or set the policy to "
            "DATA."
        )
    return found


def replica_share(
    values: Sequence[tf.Tensor], strategy: tf.distribute.Strategy, *, local: bool = False
) -> list[Any]:
    """This replica's consecutive share of a batch: of the global batch every worker feeds
    (``local=False``, sharding ``"data"``), or of this worker's own batch, split among its
    replicas only (``local=True``, sharding ``"off"``). The last replicas' share may be
    empty when the batch has fewer examples than replicas."""
    ctx = tf.distribute.get_replica_context()
    rid = tf.cast(ctx.replica_id_in_sync_group, tf.int32)
    n = strategy.num_replicas_in_sync
    if local:
        n = len(strategy.extended.worker_devices)
        rid = rid % n
    total = tf.shape(values[0])[0]
    lo, hi = rid * total // n, (rid + 1) * total // n
    return [v[lo:hi] for v in values]


def is_chief(strategy: tf.distribute.Strategy) -> bool:
    """Whether this process writes checkpoints, logs and TensorBoard: always in one process;
    the chief alone on several workers."""
    return bool(strategy.extended.should_checkpoint)


def worker_count(strategy: tf.distribute.Strategy) -> int:
    """How many worker processes train in step in ``strategy`` (a multi-worker mirrored
    strategy's workers; 1 in one process, and for a parameter-server strategy's coordinator)."""
    if not isinstance(strategy, tf.distribute.MultiWorkerMirroredStrategy):
        return 1
    local = max(1, len(strategy.extended.worker_devices))
    return max(1, int(strategy.num_replicas_in_sync) // local)


def worker_index(strategy: tf.distribute.Strategy) -> int:
    """This process's place among the workers of ``strategy`` (0: the chief; 0 in one
    process): the index ``Stream.sharded`` takes."""
    if worker_count(strategy) == 1:
        return 0
    resolver = strategy.cluster_resolver
    task_type, task_id = resolver.task_type, int(resolver.task_id or 0)
    has_chief = "chief" in resolver.cluster_spec().as_dict()
    if task_type == "chief":
        return 0
    return task_id + 1 if has_chief else task_id


def worker_batch(batch_size: int, workers: int, index: int) -> int:
    """Worker ``index``'s share of a global batch of ``batch_size`` over ``workers``: the
    shares differ by at most one and add up to ``batch_size``.

    >>> [worker_batch(10, 3, i) for i in range(3)]
    [4, 3, 3]
    """
    if batch_size < workers:
        raise tw.ArgumentError(
            f"[train] batch_size = {batch_size} is the global batch, shared by {workers} "
            f"workers: some would get no example. Fix: batch_size >= {workers} (the workers)."
        )
    return batch_size // workers + (1 if index < batch_size % workers else 0)


def agree(strategy: tf.distribute.Strategy, value: int) -> list[int]:
    """Every worker's ``value``, in worker order, on every worker (one all-reduce: each
    worker's first replica adds its value at its place). Every worker must call it."""
    n, index = worker_count(strategy), worker_index(strategy)
    local = max(1, len(strategy.extended.worker_devices))
    mine = np.zeros(n, np.int64)
    mine[index] = int(value)

    def per_replica(ctx: tf.distribute.ValueContext) -> tf.Tensor:
        first = ctx.replica_id_in_sync_group == index * local
        return tf.constant(mine if first else np.zeros_like(mine))

    shared = strategy.experimental_distribute_values_from_function(per_replica)
    out = strategy.reduce(tf.distribute.ReduceOp.SUM, shared, axis=None).numpy()
    return [int(v) for v in out]


def worker_batches(
    model: Any,
    data: Any,
    setting: str = "auto",
    *,
    batch_size: int | None = None,
    shuffle: bool = True,
    seed: int = 0,
) -> tuple[Batches, str]:
    """The batches this worker trains on and the loop's sharding (``shard_mode``).

    A stream of a file dataset under a multi-worker strategy with ``setting == "auto"`` is
    read through ``stream.sharded(workers, index)`` in batches of ``worker_batch`` (the
    global batch stays ``batch_size``), cut to the step count every worker agrees on (the
    fewest batches of any worker); sharding ``"off"`` (each worker's batch is its own).
    Anything else is ``model.batches(data)`` with ``shard_mode(data, setting)``."""
    mode = shard_mode(data, setting)
    strategy = model.strategy
    workers = worker_count(strategy)
    stream = stream_of(data)
    if workers == 1 or stream is None or setting != "auto":
        return model.batches(data, batch_size=batch_size, shuffle=shuffle, seed=seed), mode
    index = worker_index(strategy)
    size = worker_batch(int(batch_size or 32), workers, index)
    share = stream.sharded(workers, index)
    if isinstance(data, tuple):
        columns: Any = tuple(share[c.field] for c in data)
    else:
        columns = {name: share[c.field] for name, c in data.items()}
    mine = model.batches(columns, batch_size=size, shuffle=shuffle, seed=seed)
    counts = agree(strategy, len(mine))
    steps = min(counts)
    if steps == 0:
        raise tw.TensorweaveError(
            f"{stream.name}: a worker's share has no batch (batches per worker: {counts}). "
            "Fix: more examples or files than workers, or fewer workers."
        )
    if max(counts) > steps:
        left = sum(c - steps for c in counts)
        warnings.warn(
            f"{stream.name}: the workers' shares have {counts} batches; every worker trains "
            f"{steps} per epoch, so up to {left} batch(es) of the larger shares are left out "
            "each epoch (docs/distributed.md, 'File datasets').",
            stacklevel=3,
        )

    def make(epoch: int, skip: int) -> Iterator[tuple[Any, ...]]:
        return itertools.islice(mine.epoch(epoch, skip), max(steps - skip, 0))

    def same_order(saved: dict[str, Any], now: dict[str, Any]) -> None:
        # the chief saved its own share's position: the workers' batch sizes and files may
        # differ from it, the epoch's order seed may not
        share.check_position({k: v for k, v in saved.items() if k in _SHARED_POSITION}, now)

    return Batches(make, steps, position=mine.position, check=same_order), "off"


def _share(strategy: tf.distribute.Strategy, value: Any, mine: bool) -> np.ndarray:
    """``value`` (the chief's; zeros of its shape elsewhere) on every worker: a sum over the
    replicas where only the chief's first replica adds anything."""
    value = tf.convert_to_tensor(value)

    def per_replica(ctx: tf.distribute.ReplicaContext) -> tf.Tensor:
        first = mine and ctx.replica_id_in_sync_group == 0
        return value if first else tf.zeros_like(value)

    shared = strategy.experimental_distribute_values_from_function(per_replica)
    out: np.ndarray = strategy.reduce(tf.distribute.ReduceOp.SUM, shared, axis=None).numpy()
    return out


def _variables(model: Any) -> list[tf.Variable]:
    """What a checkpoint of ``model`` holds, in a fixed order (the same on every worker)."""
    found: list[tf.Variable] = []
    seen: set[int] = set()
    for obj in tf.train.TrackableView(model).descendants():
        if isinstance(obj, tf.Variable) and id(obj) not in seen:
            seen.add(id(obj))
            found.append(obj)
    return found


def share_from_chief(model: Any, snapshot: dict[str, Any] | None) -> dict[str, Any] | None:
    """The chief's ``snapshot`` (the loop's position, or ``None``) and, when there is one,
    the chief's values of every variable a checkpoint of ``model`` holds, on every worker.
    Every worker must call it at the same point (it runs collectives)."""
    strategy = model.strategy
    mine = is_chief(strategy)
    text = json.dumps(snapshot if mine else None).encode()
    size = int(_share(strategy, np.int64(len(text)), mine))
    payload = np.zeros(size, np.int32)
    if mine:
        payload[:] = np.frombuffer(text, np.uint8)
    data = _share(strategy, payload, mine).astype(np.uint8).tobytes()
    shared: dict[str, Any] | None = json.loads(data.decode())
    if shared is None:
        return None
    by_dtype: dict[tf.DType, list[tf.Variable]] = {}
    for var in _variables(model):
        by_dtype.setdefault(var.dtype.base_dtype, []).append(var)
    for variables in by_dtype.values():
        flat = tf.concat([tf.reshape(v.read_value(), [-1]) for v in variables], 0)
        values = _share(strategy, flat, mine)
        if mine:
            continue  # the chief sent its values
        start = 0
        for var in variables:
            size = int(np.prod(var.shape.as_list(), dtype=np.int64))
            var.assign(values[start : start + size].reshape(var.shape.as_list()))
            start += size
    return shared


def restore(checkpointer: Checkpointer, model: Any) -> dict[str, Any] | None:
    """Restore the newest valid checkpoint into ``model``; its loop snapshot, or ``None``.
    On several workers the chief reads it and sends it to the others (``share_from_chief``)."""
    strategy = model.strategy
    if worker_count(strategy) == 1:
        return checkpointer.restore(model)
    snapshot = checkpointer.restore(model) if is_chief(strategy) else None
    return share_from_chief(model, snapshot)
