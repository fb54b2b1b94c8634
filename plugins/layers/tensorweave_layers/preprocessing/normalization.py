"""``Normalization``: ``(x - mean) / sqrt(variance)`` per feature, as ``keras.layers.Normalization``.

The mean and variance are options (``mean=``, ``variance=``: a number or one value per kept
feature) or learned by ``layer.adapt(data)``, which streams over the data once, batch by
batch, combining each batch's mean and variance into running ones (Chan/Welford, in
float64), so the data never has to fit in memory. The statistics are non-trainable
variables of the layer (``layer.mean``, ``layer.variance``, ``layer.count``): checkpoints
and SavedModels carry them. ``invert=True`` maps back: ``mean + x * sqrt(variance)``. The
divisor is ``max(sqrt(variance), 1e-7)`` (Keras's epsilon), so a constant feature gives 0.

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(n_units=2, name="x", value=[[1.0, 10.0], [3.0, 30.0]])
>>> norm = Normalization(x)
>>> norm.adapt(np.array([[1.0, 10.0], [3.0, 30.0]]))
>>> norm.mean.numpy().tolist(), norm.variance.numpy().tolist()
([2.0, 20.0], [1.0, 100.0])
>>> norm().numpy().tolist()
[[-1.0, -1.0], [1.0, 1.0]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner as name_owner
from tensorweave_layers._spatial import describe
from tensorweave_layers.preprocessing._adapt import batches

__all__ = ["Normalization"]

EPSILON = 1e-7  # keras.backend.epsilon()
Stat = float | Sequence[Any] | None


class Normalization(tw.Layer):
    """Standardize features with a mean and variance given or learned by ``adapt``.

    Args:
        x: a numeric input; its kept axes must have a known size.
        axis: the axis (or axes) that have their own mean and variance (Keras's ``axis``:
            ``-1`` = one per feature of the last axis; ``None`` = one for everything).
        mean, variance: the statistics, both or neither (then ``adapt`` learns them; until
            it does, the layer is the identity: mean 0, variance 1). A number or an array
            that broadcasts to the kept axes.
        invert: undo a normalization: ``mean + x * sqrt(variance)``.
    """

    compute_precision = "float32"  # statistics in float32 under mixed precision

    def __init__(
        self,
        x: tw.Layer,
        *,
        axis: int | Sequence[int] | None = -1,
        mean: Stat = None,
        variance: Stat = None,
        invert: bool = False,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        owner = name_owner("Normalization", name)
        self.owner = owner
        if x.dtype == tf.string or not (x.dtype.is_floating or x.dtype.is_integer):
            raise tw.InputValueError(
                f"{owner} standardizes numbers, but {describe(x)} is {x.dtype.name}. Fix: look "
                "strings up first (StringLookup.v1, then CategoryEncoding.v1), or cast the "
                "input to a number."
            )
        if x.sparse:
            raise tw.ShapeError(f"{owner} expects a dense input, got {describe(x)}.")
        if (mean is None) != (variance is None):
            raise tw.ArgumentError(
                f"{owner}: give both mean and variance, or neither (then adapt learns them); "
                f"got mean={mean!r}, variance={variance!r}."
            )
        rank = len(x.shape)
        axes = () if axis is None else (axis,) if isinstance(axis, int) else tuple(axis)
        if any(not isinstance(a, int) or not -rank <= a < rank for a in axes):
            raise tw.ArgumentError(
                f"{owner}: axis must be ints in [-{rank}, {rank}) for {describe(x)}, got {axis!r}."
            )
        self.axis = axis if axis is None or isinstance(axis, int) else list(axis)
        self.keep = tuple(sorted({a % rank for a in axes}))
        unknown = [a for a in self.keep if x.shape[a] is None]
        if unknown:
            raise tw.ShapeError(
                f"{owner}: the kept axis {unknown[0]} of {describe(x)} has no fixed size, so it "
                "cannot have one mean per entry. Fix: keep axes of known size (axis=-1 for "
                "features), or axis=None for one mean."
            )
        self.reduce = tuple(a for a in range(rank) if a not in self.keep)
        self.stat_shape = tuple(int(x.shape[a]) for a in self.keep)  # type: ignore[arg-type]
        self.broadcast = [x.shape[a] if a in self.keep else 1 for a in range(rank)]
        self.given = (
            None if mean is None else (self._fit(mean, "mean"), self._fit(variance, "variance"))
        )
        self.input_rank = rank
        self.invert = bool(invert)
        out = x.dtype if x.dtype.is_floating else tf.float32
        super().__init__(x, shape=x.shape, dtype=out, name=name, share_state_with=share_state_with)

    def _fit(self, value: Stat, option: str) -> np.ndarray:
        array = np.asarray(value, "float64")
        try:
            return np.broadcast_to(array, self.stat_shape).copy()
        except ValueError as err:
            raise tw.ArgumentError(
                f"{self.owner}: {option} of shape {array.shape} does not fit the kept axes "
                f"{self.stat_shape}. Fix: one value, or one per kept entry."
            ) from err

    def init_state(self) -> None:
        """``mean``, ``variance`` and ``count`` (how many values ``adapt`` saw), not trained."""
        mean, variance = self.given or (np.zeros(self.stat_shape), np.ones(self.stat_shape))
        self.state.mean = tf.Variable(mean.astype("float32"), trainable=False, name="mean")
        self.state.variance = tf.Variable(
            variance.astype("float32"), trainable=False, name="variance"
        )
        self.state.count = tf.Variable(tf.constant(0, tf.int64), trainable=False, name="count")

    @property
    def mean(self) -> tf.Variable:
        """The mean of each kept entry (adapted or given)."""
        return self.state.mean

    @property
    def variance(self) -> tf.Variable:
        """The (population) variance of each kept entry."""
        return self.state.variance

    @property
    def count(self) -> tf.Variable:
        """How many values per kept entry ``adapt`` read (0 if never adapted)."""
        return self.state.count

    def adapt(self, data: Any) -> None:
        """Learn ``mean`` and ``variance`` from ``data`` in one pass, batch by batch.

        ``data``: a numpy array or tensor (batch first, the layer's input rank), a
        ``tf.data.Dataset`` of batches (``(x, y)`` elements use ``x``; an unbatched dataset
        is batched) or any iterable of batches. Replaces the previous state, as Keras's.
        """
        count, mean, m2 = 0, np.zeros(self.stat_shape), np.zeros(self.stat_shape)
        for batch in batches(data, rank=self.input_rank, owner=self.owner):
            if batch.dtype.kind not in "biuf":
                raise tw.InputValueError(
                    f"{self.owner}.adapt got values of dtype {batch.dtype}, not numbers. Fix: "
                    "adapt on the numeric column (strings go to StringLookup.v1)."
                )
            for a in self.keep:
                if batch.shape[a] != self.broadcast[a]:
                    raise tw.ShapeError(
                        f"{self.owner}.adapt: a batch of shape {batch.shape} does not fit the "
                        f"layer's input {self.inputs[0].shape}. Fix: adapt on data shaped as "
                        "the input."
                    )
            values = batch.astype("float64")
            n = int(np.prod([batch.shape[a] for a in self.reduce]))
            b_mean = values.mean(axis=self.reduce)
            b_m2 = values.var(axis=self.reduce) * n
            total = count + n
            delta = b_mean - mean
            mean = mean + delta * (n / total)
            m2 = m2 + b_m2 + delta**2 * (count * n / total)
            count = total
        self.state.mean.assign(mean.astype("float32"))
        self.state.variance.assign((m2 / count).astype("float32"))
        self.state.count.assign(count)

    def compute(self, x: Any) -> tf.Tensor:
        """Standardize ``x`` (or, with ``invert``, undo it)."""
        x = tf.cast(x, self.compute_dtype)
        mean = tf.reshape(tf.cast(self.state.mean, x.dtype), self.broadcast)
        variance = tf.reshape(tf.cast(self.state.variance, x.dtype), self.broadcast)
        scale = tf.maximum(tf.sqrt(variance), tf.constant(EPSILON, x.dtype))
        return mean + x * scale if self.invert else (x - mean) / scale
