"""The conformance checks of the ``augmenters`` kind, published through the
``tensorweave_conformance_checks`` hook (``hooks.py``): they run on every augmenter any pack
registers, whenever its tests list it as a ``ComponentCase``.

>>> from tensorweave_augment.augmenters import Jitter
>>> keeps_shape_and_dtype(Jitter()); draws_from_the_generator(Jitter())
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw

__all__ = ["keeps_shape_and_dtype", "draws_from_the_generator"]


def _batch() -> tf.Tensor:
    return tf.reshape(tf.range(24, dtype=tf.float32), [2, 3, 4]) / 24.0


def keeps_shape_and_dtype(augmenter: Any) -> None:
    """``augmenter(x, rng)`` has ``x``'s shape and dtype, eagerly and compiled (as a graph
    node, through ``tw.compile``)."""
    x = _batch()
    rng = tf.random.Generator.from_seed(0)
    node = tw.Lambda(lambda t: augmenter(t, rng), tw.Input(shape=tuple(x.shape[1:])), shape=x.shape)
    for out in (augmenter(x, rng), tw.compile(node)(x)):
        assert out.shape == x.shape and out.dtype == x.dtype, (
            f"{augmenter!r} gave {out.dtype.name} {out.shape} for {x.dtype.name} {x.shape}"
        )


def draws_from_the_generator(augmenter: Any) -> None:
    """Two generators seeded alike give the same result: all randomness comes from ``rng``
    (so checkpoints and ``tf.random.set_seed`` make runs repeat)."""
    x = _batch()
    first = augmenter(x, tf.random.Generator.from_seed(7))
    tf.random.uniform([])  # op-level randomness moves on; the generator's must not depend on it
    second = augmenter(x, tf.random.Generator.from_seed(7))
    np.testing.assert_array_equal(first, second, err_msg=f"{augmenter!r} draws outside rng")
