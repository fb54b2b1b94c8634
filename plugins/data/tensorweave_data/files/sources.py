"""Files into ``tf.data``: the interleaved parallel read and the seeded validation hold-out
every file dataset's records come from.

>>> import tensorflow as tf
>>> ds = file_dataset(["a", "b"], None, lambda p: tf.data.Dataset.from_tensors(p))
>>> [p.numpy().decode() for p in ds]
['a', 'b']
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

import numpy as np
import tensorflow as tf

__all__ = ["AUTOTUNE", "file_dataset", "held_out"]

AUTOTUNE = tf.data.AUTOTUNE


def file_dataset(
    files: Sequence[str], order: int | None, read: Callable[[tf.Tensor], tf.data.Dataset]
) -> tf.data.Dataset:
    """``read(path)`` of each of ``files``, read in parallel and interleaved (deterministic:
    the same order every time), the files in the order the seed ``order`` draws (``None``:
    as given). What every file dataset streams from."""
    names = list(files)
    if order is not None:
        names = [names[i] for i in np.random.default_rng(order).permutation(len(names))]
    ds = tf.data.Dataset.from_tensor_slices(tf.constant(names, tf.string, shape=[len(names)]))
    return ds.interleave(
        read,
        cycle_length=max(1, min(len(names), 4)),
        num_parallel_calls=AUTOTUNE,
        deterministic=True,
    )


def held_out(path: tf.Tensor, index: tf.Tensor, *, seed: int, validation_split: float) -> tf.Tensor:
    """Whether example ``index`` of the file ``path`` belongs to the validation split: a
    seeded hash of the file's name (not its folder: the same split wherever the files are)
    and ``index``, true for a ``validation_split`` fraction of the keys."""
    key = tf.strings.join(
        [str(seed), tf.strings.split(path, os.sep)[-1], tf.strings.as_string(index)], ":"
    )
    return tf.strings.to_hash_bucket_fast(key, 10_000) < int(float(validation_split) * 10_000)
