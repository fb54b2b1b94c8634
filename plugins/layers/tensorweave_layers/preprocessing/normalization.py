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
from tensorweave_layers.preprocessing._adapt import Adaptable, adapt_option, no_data

__all__ = ["Normalization"]

EPSILON = 1e-7  # keras.backend.epsilon()
Stat = float | Sequence[Any] | None


class Normalization(Adaptable, tw.Layer):
    """Standardize features with a mean and variance given or learned by ``adapt``.

    Args:
        x: a numeric input; its kept axes must have a known size.
        axis: the axis (or axes) that have their own mean and variance (Keras's ``axis``:
            ``-1`` = one per feature of the last axis; ``None`` = one for everything).
        mean, variance: the statistics, both or neither (then ``adapt`` learns them; until
            it does, the layer is the identity: mean 0, variance 1). A number or an array
            that broadcasts to the kept axes.
        invert: undo a normalization: ``mean + x * sqrt(variance)``.
        adapt: whether ``tensorweave train`` adapts it on the training split before
            training: by default when ``mean``/``variance`` are not given; ``false`` with them.
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
        adapt: bool | None = None,
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
        self.input_rank = self.adapt_rank = rank
        self.adapt_from_config = adapt_option(
            adapt, self.given is not None, owner, "mean=/variance="
        )
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

    def adapter(self) -> _Moments:
        """A pass learning ``mean`` and ``variance`` (``adapt(data)`` runs one)."""
        return _Moments(self)

    def adapted(self) -> dict[str, Any]:
        """The adapted statistics, for a run's record."""
        return {
            "mean": self.mean.numpy().tolist(),
            "variance": self.variance.numpy().tolist(),
            "count": int(self.count.numpy()),
        }

    def compute(self, x: Any) -> tf.Tensor:
        """Standardize ``x`` (or, with ``invert``, undo it)."""
        x = tf.cast(x, self.compute_dtype)
        mean = tf.reshape(tf.cast(self.state.mean, x.dtype), self.broadcast)
        variance = tf.reshape(tf.cast(self.state.variance, x.dtype), self.broadcast)
        scale = tf.maximum(tf.sqrt(variance), tf.constant(EPSILON, x.dtype))
        return mean + x * scale if self.invert else (x - mean) / scale


class _Moments:
    """Running mean and variance over batches (Chan/Welford, float64)."""

    def __init__(self, layer: Normalization) -> None:
        self.layer = layer
        self.count, self.mean, self.m2 = 0, np.zeros(layer.stat_shape), np.zeros(layer.stat_shape)

    def update(self, batch: np.ndarray) -> None:
        """Combine ``batch``'s mean and variance into the running ones."""
        layer = self.layer
        if batch.dtype.kind not in "biuf":
            raise tw.InputValueError(
                f"{layer.owner}.adapt got values of dtype {batch.dtype}, not numbers. Fix: "
                "adapt on the numeric column (strings go to StringLookup.v1)."
            )
        for a in layer.keep:
            if batch.ndim != layer.input_rank or batch.shape[a] != layer.broadcast[a]:
                raise tw.ShapeError(
                    f"{layer.owner}.adapt: a batch of shape {batch.shape} does not fit the "
                    f"layer's input {layer.inputs[0].shape}. Fix: adapt on data shaped as "
                    "the input."
                )
        if not batch.size:
            return
        values = batch.astype("float64")
        n = int(np.prod([batch.shape[a] for a in layer.reduce]))
        b_mean = values.mean(axis=layer.reduce)
        b_m2 = values.var(axis=layer.reduce) * n
        total = self.count + n
        delta = b_mean - self.mean
        self.mean = self.mean + delta * (n / total)
        self.m2 = self.m2 + b_m2 + delta**2 * (self.count * n / total)
        self.count = total

    def finish(self) -> None:
        """Assign the statistics (``AdaptError`` when no value came)."""
        if not self.count:
            raise no_data(self.layer.owner)
        self.layer.state.mean.assign(self.mean.astype("float32"))
        self.layer.state.variance.assign((self.m2 / self.count).astype("float32"))
        self.layer.state.count.assign(self.count)
