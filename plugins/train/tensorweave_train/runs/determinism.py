"""``[train] deterministic = true``: the same config gives the same weights, bit for bit.

``seed_everything`` sets every seed tensorweave controls from ``[train] seed``: Python's
``random``, numpy's global generator and TensorFlow's global seed (and, deterministic, its
global ``tf.random.Generator``; the data order is a
function of ``(seed, epoch)`` already, ``loop.data``). ``make_deterministic`` does that and
also turns on TensorFlow's op determinism (``tf.config.experimental.enable_op_determinism``:
ops with no deterministic kernel raise instead of running, and tf.data keeps its order).
A job calls ``apply`` with its ``[train]`` settings before its data and model are built.

Op determinism is a process-wide TensorFlow switch; ``apply`` turns it on for a
deterministic job and leaves it as it found it otherwise (``restore`` turns it back when a
job that turned it on is done). What is and is not bit-exact: docs/reproducibility.md.

>>> import random
>>> seed_everything(7)
>>> a = random.random()
>>> seed_everything(7)
>>> a == random.random()
True
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

__all__ = ["seed_everything", "make_deterministic", "op_determinism", "apply", "restore"]

_CLUSTER = ("multi_worker", "parameter_server")  # strategies of several processes


def seed_everything(seed: int) -> None:
    """Seed Python's ``random``, numpy's global generator and TensorFlow's global seed."""
    import tensorflow as tf

    random.seed(int(seed))
    np.random.seed(int(seed))
    tf.random.set_seed(int(seed))


def op_determinism() -> bool:
    """Whether TensorFlow's op determinism is on in this process."""
    from tensorflow.python.framework import config

    return bool(config.is_op_determinism_enabled())


def make_deterministic(seed: int) -> None:
    """Every seed (``seed_everything``), TensorFlow's global ``tf.random.Generator`` made
    from ``seed`` (checkpoints save it; op determinism refuses an unseeded one) and
    TensorFlow's op determinism on."""
    import tensorflow as tf

    seed_everything(seed)
    _seed_global_generator(seed)
    tf.config.experimental.enable_op_determinism()


def _seed_global_generator(seed: int) -> None:
    import tensorflow as tf

    tf.random.set_global_generator(tf.random.Generator.from_seed(int(seed)))


def apply(settings: Any) -> bool:
    """Seed a job from its ``[train]`` ``settings`` (a ``TrainSettings``), and with
        ``settings.deterministic`` turn op determinism on. Returns whether this call turned it
        on (give that to ``restore`` when the job is done). A strategy of several processes
    (``multi_worker``, ``parameter_server``) is refused with ``deterministic``: a
    ``ConfigError`` at ``train.deterministic`` (their all-reduce order is not fixed)."""
    if not getattr(settings, "deterministic", False):
        seed_everything(settings.seed)
        if op_determinism():  # TF_DETERMINISTIC_OPS=1, or the caller turned it on
            _seed_global_generator(settings.seed)  # which refuses an unseeded one
        return False
    strategy = str(getattr(settings, "strategy", "default"))
    if strategy in _CLUSTER:
        import tensorweave.config as twc

        raise twc.ConfigError(
            [
                (
                    "train.deterministic",
                    f"is for one process, not strategy = {strategy!r}: the workers' "
                    "all-reduce sums in the order gradients arrive, so no run of several "
                    "workers repeats bit for bit (docs/reproducibility.md). Fix: "
                    "deterministic = false on several workers (seeds are still set), or "
                    'strategy = "default" / "mirrored" for a bit-exact run',
                )
            ]
        )
    was_on = op_determinism()
    make_deterministic(settings.seed)
    return not was_on


def restore(turned_on: bool) -> None:
    """Turn op determinism off again when ``apply`` turned it on (``turned_on``)."""
    if turned_on:
        from tensorflow.python.framework import config

        config.disable_op_determinism()
