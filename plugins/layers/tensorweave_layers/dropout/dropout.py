"""``Dropout``: zero random entries at training time, scaling the rest by ``1 / (1 - p)``.

Works on dense and sparse inputs (for a ``tf.SparseTensor`` the stored values are dropped
and removed). The random mask is its own graph node (``dropout.mask``), so a reuse can read
the *same* mask: ``drop.reuse_with(x2, shared_mask=True)`` (alias ``locked=True``) drops the
same entries as ``drop`` in each run, as variational/locked dropout in recurrent nets needs;
the inputs must then have the same shape (for sparse inputs, the same stored entries).
``drop.reuse_with(x, training=False)`` is the identity. ``noise_shape`` (``None`` for "as the
input") broadcasts one mask, e.g. ``(None, 1, None)`` drops the same features at every step.

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(n_units=1000, name="x", value=np.ones((2, 1000), "float32"))
>>> drop = Dropout(x, rate=0.5)
>>> out = drop().numpy()
>>> sorted(set(out.ravel().tolist())), bool(0.4 < (out == 0).mean() < 0.6)
([0.0, 2.0], True)
>>> same = drop.reuse_with(x, shared_mask=True)
>>> a, b = tw.compile([drop, same])()
>>> bool(np.all(a.numpy() == b.numpy()))
True
>>> float(drop.reuse_with(x, training=False)().numpy().max())
1.0
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner as name_owner
from tensorweave_layers._spatial import describe

__all__ = ["Dropout", "DropMask"]


def _check_rate(rate: float, owner: str) -> float:
    p = float(rate)
    if not 0.0 <= p < 1.0:
        raise ValueError(f"{owner}: rate must be in [0, 1), got {rate!r}.")
    return p


class DropMask(tw.Layer):
    """The random, scaled keep-mask of a ``Dropout``: ``0`` or ``1 / (1 - rate)``.

    Its input is only used for its (dynamic) shape: dense inputs get a mask of the input's
    shape (or ``noise_shape``); sparse inputs get one entry per stored value.
    """

    def __init__(
        self,
        x: tw.Layer,
        rate: float,
        *,
        noise_shape: Sequence[int | None] | None = None,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        owner = name_owner("DropMask", name)
        self.rate = _check_rate(rate, owner)
        if not x.dtype.is_floating:
            raise TypeError(
                f"{owner}: dropout scales kept values by 1 / (1 - p), so {describe(x)} must be "
                f"floating point, not {x.dtype.name}. Fix: cast it first, e.g. tw.ops.cast(x, "
                "tf.float32)."
            )
        self.noise_shape = None if noise_shape is None else tuple(noise_shape)
        if x.sparse:
            if self.noise_shape is not None:
                raise ValueError(
                    f"{owner}: noise_shape is not supported for the sparse input {describe(x)}."
                )
            shape: tuple[int | None, ...] = (None,)
        elif self.noise_shape is not None:
            if len(self.noise_shape) != len(x.shape):
                raise tw.ShapeError(
                    f"{owner}: noise_shape {self.noise_shape} must have the rank of the input "
                    f"{describe(x)}. Fix: one entry per axis, None for 'same as the input'."
                )
            shape = tuple(
                d if n is None else n for d, n in zip(x.shape, self.noise_shape, strict=True)
            )
        else:
            shape = x.shape
        super().__init__(
            x, shape=shape, dtype=x.dtype, name=name, share_state_with=share_state_with
        )

    def init_state(self) -> None:
        """The mask's random generator (checkpointed, so a resumed run draws on)."""
        self.state.generator()

    def compute(self, x: Any) -> tf.Tensor:
        """A fresh random mask for ``x``."""
        if isinstance(x, tf.SparseTensor):
            shape = tf.shape(x.values)
        else:
            shape = tf.shape(x)
            if self.noise_shape is not None:
                shape = tf.stack(
                    [shape[i] if n is None else n for i, n in enumerate(self.noise_shape)]
                )
        keep = self.state.rng.uniform(shape) >= self.rate
        dtype = self.compute_dtype
        return tf.cast(keep, dtype) / tf.constant(1.0 - self.rate, dtype)


class Dropout(tw.Layer):
    """Randomly zero entries of ``x`` with probability ``rate`` when ``training``.

    Args:
        x: the input, dense or sparse.
        rate: the chance of dropping each entry, in ``[0, 1)``.
        training: drop (``True``) or pass ``x`` through unchanged (``False``).
        noise_shape: the mask's shape, broadcast over ``x`` (dense only); ``None`` entries
            follow the input.
        mask: a ``DropMask`` node to use instead of a new one (``reuse_with`` sets it).
    """

    keeps_padding_mask = True  # steps stay steps: a padding mask passes on

    def __init__(
        self,
        x: tw.Layer,
        rate: float = 0.1,
        *,
        training: bool = True,
        noise_shape: Sequence[int | None] | None = None,
        mask: tw.Layer | None = None,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        owner = name_owner("Dropout", name)
        self.rate = _check_rate(rate, owner)
        self.training = bool(training)
        self.noise_shape = None if noise_shape is None else tuple(noise_shape)
        inputs: tuple[tw.Layer, ...] = (x,)
        if self.training and self.rate > 0.0:
            if mask is None:
                mask = DropMask(x, self.rate, noise_shape=self.noise_shape)
            elif not x.sparse and len(mask.shape) != len(x.shape):
                raise tw.ShapeError(
                    f"{owner}: the mask {describe(mask)} does not fit the input {describe(x)}. "
                    "Fix: share masks only between inputs of the same shape."
                )
            elif not x.sparse:
                for a, b in zip(mask.shape, x.shape, strict=True):
                    if a is not None and b is not None and a not in (1, b):
                        raise tw.ShapeError(
                            f"{owner}: the shared mask {describe(mask)} does not fit the input "
                            f"{describe(x)}. Fix: share masks only between inputs of the same "
                            "shape."
                        )
            inputs = (x, mask)
        super().__init__(
            *inputs,
            shape=x.shape,
            dtype=x.dtype,
            sparse=x.sparse,
            name=name,
            share_state_with=share_state_with,
        )

    @property
    def mask(self) -> tw.Layer | None:
        """The mask node this dropout multiplies by (``None`` when it is the identity)."""
        return self.inputs[1] if len(self.inputs) > 1 else None

    def compute(self, x: Any, mask: Any = None) -> Any:
        """``x * mask`` (dense) or the kept, rescaled stored values (sparse)."""
        if isinstance(x, tf.SparseTensor):
            if mask is None:
                return x
            scaled = tf.SparseTensor(x.indices, x.values * mask, x.dense_shape)
            return tf.sparse.retain(scaled, mask > 0)
        return tf.identity(x) if mask is None else x * mask

    def reuse_with(  # type: ignore[override]  # explicit per-use options
        self,
        *inputs: tw.Layer,
        training: bool | None = None,
        shared_mask: bool = False,
        locked: bool = False,
        rate: float | None = None,
        noise_shape: Sequence[int | None] | None = None,
        name: str | None = None,
    ) -> Dropout:
        """Dropout of ``inputs[0]``; ``shared_mask``/``locked`` reuses this node's mask,
        ``training=False`` gives the identity. A second input is taken as the mask node
        (``tw.Module`` passes it when it rebuilds its graph)."""
        if not 1 <= len(inputs) <= 2:
            raise TypeError(
                f"Dropout {self.name!r}.reuse_with takes the input (and optionally a mask "
                f"node), got {len(inputs)} inputs."
            )
        mask = inputs[1] if len(inputs) == 2 else None
        if shared_mask or locked:
            if self.mask is None:
                raise ValueError(
                    f"Dropout {self.name!r} has no mask to share (training=False or "
                    "rate=0). Fix: share the mask of a training dropout."
                )
            mask = self.mask
        return Dropout(
            inputs[0],
            rate=self.rate if rate is None else rate,
            training=self.training if training is None else training,
            noise_shape=self.noise_shape if noise_shape is None else noise_shape,
            mask=mask,
            name=name,
            share_state_with=self,
        )
