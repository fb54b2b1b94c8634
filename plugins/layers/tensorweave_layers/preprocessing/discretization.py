"""``Discretization``: the bin index of each value, as ``keras.layers.Discretization``.

Bins are given (``bin_boundaries=[0.0, 1.0]``: ``x < 0`` → 0, ``0 <= x < 1`` → 1, ``x >= 1``
→ 2) or learned by ``layer.adapt(data)`` as ``num_bins`` quantiles. Adapting streams the
data once, summarizing each batch into at most ``1 / epsilon`` weighted points and merging
the summaries, with Keras's own algorithm (so the same data, batched the same way, gives
Keras's boundaries). The boundaries are a non-trainable variable (``layer.bin_boundaries``):
checkpoints and SavedModels carry them. ``output_mode`` as Keras: ``"int"`` (int32 indices)
or ``"one_hot"``, ``"multi_hot"``, ``"count"`` (float32 vectors of ``num_bins`` entries).

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(n_units=3, name="x", value=[[-1.0, 0.5, 2.0]])
>>> Discretization(x, bin_boundaries=[0.0, 1.0])().numpy().tolist()
[[0, 1, 2]]
>>> d = Discretization(x, num_bins=4)
>>> d.adapt(np.arange(1.0, 9.0).reshape(-1, 1))
>>> d.bin_boundaries.numpy().tolist()
[2.0, 4.0, 6.0]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner as name_owner
from tensorweave_layers._spatial import describe
from tensorweave_layers.preprocessing._adapt import Adaptable, AdaptError, adapt_option, no_data
from tensorweave_layers.preprocessing._encode import check_mode, encode, encoded_shape

__all__ = ["Discretization"]


class Discretization(Adaptable, tw.Layer):
    """Map each value to the index of its bin.

    Args:
        x: a numeric input (rank 1 or 2 for the vector ``output_mode`` s).
        bin_boundaries: the sorted inner edges; or
        num_bins: how many bins ``adapt`` makes (``num_bins - 1`` quantile edges).
        epsilon: the quantile summary's precision (Keras's default ``0.01``).
        output_mode: ``"int"``, ``"one_hot"``, ``"multi_hot"`` or ``"count"``.
        adapt: whether ``tensorweave train`` adapts it on the training split before
            training: by default with ``num_bins``; ``false`` with ``bin_boundaries``.
    """

    compute_precision = "float32"

    def __init__(
        self,
        x: tw.Layer,
        *,
        bin_boundaries: Sequence[float] | None = None,
        num_bins: int | None = None,
        epsilon: float = 0.01,
        output_mode: str = "int",
        adapt: bool | None = None,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        owner = name_owner("Discretization", name)
        self.owner = owner
        if not (x.dtype.is_floating or x.dtype.is_integer) or x.dtype == tf.string:
            raise tw.InputValueError(
                f"{owner} bins numbers, but {describe(x)} is {x.dtype.name}. Fix: cast it to a "
                "number, or use StringLookup.v1 for strings."
            )
        if (bin_boundaries is None) == (num_bins is None):
            raise tw.ArgumentError(
                f"{owner}: give bin_boundaries or num_bins (to adapt), exactly one of them; got "
                f"bin_boundaries={bin_boundaries!r}, num_bins={num_bins!r}."
            )
        if bin_boundaries is not None:
            edges = [float(b) for b in bin_boundaries]
            if edges != sorted(edges):
                raise tw.ArgumentError(f"{owner}: bin_boundaries must be sorted, got {edges}.")
            self.bin_count = len(edges) + 1
        else:
            self.bin_count = tw.positive_int(num_bins, "num_bins", owner)
            edges = []
        self.given = None if bin_boundaries is None else edges
        self.adapt_from_config = adapt_option(
            adapt, self.given is not None, owner, "bin_boundaries="
        )
        self.adapt_whole = True  # an in-memory array is summarized whole, as Keras does
        self.num_bins = num_bins
        self.epsilon = float(epsilon)
        if not 0.0 < self.epsilon < 1.0:
            raise tw.ArgumentError(f"{owner}: epsilon must be in (0, 1), got {epsilon!r}.")
        self.output_mode = check_mode(output_mode, owner)
        if x.sparse or (output_mode != "int" and len(x.shape) > 2):
            raise tw.ShapeError(
                f"{owner}: output_mode={output_mode!r} takes a dense input of rank 1 or 2, got "
                f"{describe(x)}. Fix: reshape it, or use output_mode='int'."
            )
        out = tf.int32 if output_mode == "int" else tf.float32
        shape = encoded_shape(x.shape, output_mode, self.bin_count)
        super().__init__(x, shape=shape, dtype=out, name=name, share_state_with=share_state_with)

    def init_state(self) -> None:
        """``bin_boundaries``: the given edges, or ``num_bins - 1`` placeholders until
        ``adapt`` (then every value falls in bin 0... ``num_bins - 1`` by its rank)."""
        edges = (
            self.given if self.given is not None else np.linspace(0, 1, self.bin_count + 1)[1:-1]
        )
        self.state.bin_boundaries = tf.Variable(
            np.asarray(edges, "float32").reshape([self.bin_count - 1]),
            trainable=False,
            name="bin_boundaries",
        )

    @property
    def bin_boundaries(self) -> tf.Variable:
        """The inner bin edges (given or adapted)."""
        return self.state.bin_boundaries

    def adapter(self) -> _Quantiles:
        """A pass learning ``num_bins - 1`` quantile edges (see the module): a numpy array
        is summarized whole, as Keras does; a dataset or iterable batch by batch. Raises
        ``AdaptError`` for a layer built with ``bin_boundaries``, or data with fewer
        distinct quantiles than bins."""
        if self.num_bins is None:
            raise AdaptError(
                f"{self.owner} was given bin_boundaries: there is nothing to adapt. Fix: build "
                "it with num_bins=N instead to learn N bins."
            )
        return _Quantiles(self)

    def adapted(self) -> dict[str, Any]:
        """The adapted edges, for a run's record."""
        return {"bin_boundaries": self.bin_boundaries.numpy().tolist()}

    def compute(self, x: Any) -> tf.Tensor:
        """The bin index of each value, encoded as ``output_mode`` says."""
        x = tf.cast(x, tf.float32)
        flat = tf.reshape(x, [1, -1])
        edges = tf.reshape(tf.cast(self.state.bin_boundaries, tf.float32), [1, -1])
        index = tf.reshape(
            tf.searchsorted(edges, flat, side="right", out_type=tf.int32), tf.shape(x)
        )
        return encode(index, self.output_mode, self.bin_count, tf.float32)


# Keras 3's quantile summaries (keras/src/layers/preprocessing/discretization.py, Apache 2.0):
# a summary is [values, weights]; merging sorts and re-interpolates it to 1 / epsilon points.
def _summarize(values: np.ndarray, epsilon: float) -> np.ndarray:
    values = np.sort(np.reshape(values, [-1]))
    step = max(values.size / (1.0 / epsilon), 1)
    boundaries = values[int(step - 1) :: int(step)]
    return np.stack([boundaries, np.ones_like(boundaries) * step])


def _merge(prev: np.ndarray, new: np.ndarray, epsilon: float) -> np.ndarray:
    merged = np.concatenate((prev, new), axis=1)
    return _compress(np.take(merged, np.argsort(merged[0]), axis=1), epsilon)


def _compress(summary: np.ndarray, epsilon: float) -> np.ndarray:
    if summary.shape[1] * epsilon < 1:
        return summary
    percents = epsilon + np.arange(0.0, 1.0, epsilon)
    cum_weights = summary[1].cumsum()
    cum_percents = cum_weights / cum_weights[-1]
    new_bins = np.interp(percents, cum_percents, summary[0])
    cum_weights = np.interp(percents, cum_percents, cum_weights)
    new_weights = cum_weights - np.concatenate((np.array([0]), cum_weights[:-1]))
    return np.stack((new_bins, new_weights)).astype("float32")


class _Quantiles:
    """Keras's merged quantile summary over batches."""

    def __init__(self, layer: Discretization) -> None:
        self.layer = layer
        self.summary = np.array([[], []], dtype="float32")
        self.seen = False

    def update(self, batch: np.ndarray) -> None:
        """Summarize ``batch`` and merge it into the running summary."""
        if batch.dtype.kind not in "biuf":
            raise tw.InputValueError(
                f"{self.layer.owner}.adapt got values of dtype {batch.dtype}, not numbers."
            )
        if batch.size:
            self.seen = True
            epsilon = self.layer.epsilon
            self.summary = _merge(
                _summarize(batch.astype("float32"), epsilon), self.summary, epsilon
            )

    def finish(self) -> None:
        """Assign the edges (``AdaptError`` with no value or too few distinct ones)."""
        layer = self.layer
        if not self.seen:
            raise no_data(layer.owner)
        edges = _compress(self.summary, 1.0 / layer.bin_count)[0, :-1]
        if len(edges) != layer.bin_count - 1:
            raise AdaptError(
                f"{layer.owner}.adapt found {len(edges)} edges in the data, not num_bins - 1 = "
                f"{layer.bin_count - 1}: too few values. Fix: adapt on more data, or lower num_bins."
            )
        layer.state.bin_boundaries.assign(edges.astype("float32"))
