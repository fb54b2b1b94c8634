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

import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw
from tensorweave_train.loop.checkpoints import Checkpointer

__all__ = [
    "SHARDS",
    "shard_mode",
    "replica_share",
    "is_chief",
    "worker_count",
    "restore",
    "share_from_chief",
]

SHARDS = ("auto", "data", "off")
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
