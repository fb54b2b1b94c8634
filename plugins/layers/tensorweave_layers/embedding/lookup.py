"""``Lookup``: embeddings of integer ids, for fixed or variable-length sequences.

The embedding table is one ``tf.Variable`` of shape ``(vocab_size, n_units)``, read with
``tf.gather`` / ``tf.nn.embedding_lookup`` so its gradient is a ``tf.IndexedSlices`` (only
the rows used are updated, as optimizers expect for large vocabularies). Inputs:

- dense ids ``(batch,)`` -> ``(batch, n_units)``; ``(batch, steps)`` -> ``(batch, steps,
  n_units)``; positions holding ``pad_id`` come out as zero vectors;
- sparse ``(rows, vocab_size)``, as TensorX reads it (``sparse_values="weights"``, the
  default): each row is a bag of ids, the *column* of each entry, weighted by its *value*
  (a one-hot or multi-hot encoding, counts, tf-idf…), combined with ``combiner``
  (default ``"sum"``), i.e. ``tf.nn.embedding_lookup_sparse(table, ids, weights)``:
  ``(rows, n_units)``, or with ``seq_len=n`` consecutive rows grouped into sequences,
  ``(ceil(rows / n), n, n_units)`` (a last, shorter sequence is padded with zero rows);
- sparse ids ``(batch, steps)`` with ``sparse_values="ids"`` (the values are the ids, one
  row per variable-length sequence) -> dense ``(batch, steps, n_units)`` with zeros where
  no id is given; or, with ``combiner=``, one vector per row ``(batch, n_units)``;
- ``seq_len=`` pads (with zeros) or truncates the steps of dense and ``"ids"`` inputs;
- ``batch_size=`` fixes the output's batch dimension; smaller batches are padded with zero
  rows up to it (``batch_padding=True``, TensorX's ``batch_padding``), larger ones fail;
- ``mask_zero=True`` (Keras's ``Embedding`` option) marks id 0 as padding: the output's
  ``padding_mask`` is ``ids != 0`` (padded like the output), which RNNs, attention, global
  pooling and sequence losses downstream use without being given ``mask=``.

>>> import numpy as np, tensorflow as tf, tensorweave as tw
>>> from tensorweave_layers.embedding.lookup import Lookup
>>> ids = tw.Input(batch_shape=(None, None), dtype=tf.int64, name="ids", value=[[1, 2, 0]])
>>> emb = Lookup(ids, vocab_size=3, n_units=2, pad_id=0, w_init="ones", seq_len=4)
>>> emb.shape, emb().numpy()[0].tolist()
((None, 4, 2), [[1.0, 1.0], [1.0, 1.0], [0.0, 0.0], [0.0, 0.0]])
>>> padded = Lookup(ids, vocab_size=3, n_units=2, w_init="ones", batch_size=2)
>>> padded.shape, padded().numpy()[:, 0].tolist()
((2, None, 2), [[1.0, 1.0], [0.0, 0.0]])
>>> masked = Lookup(ids, vocab_size=3, n_units=2, mask_zero=True)
>>> masked.padding_mask().numpy().tolist()
[[True, True, False]]
>>> bags = tw.Input(shape=(3,), sparse=True, name="bags")
>>> words = Lookup(bags, vocab_size=3, n_units=2, w_init="ones", seq_len=2)
>>> row = tf.sparse.from_dense([[0.5, 0.0, 2.0], [0.0, 1.0, 0.0]])  # 2 rows: 1 sequence
>>> words.shape, words(row).numpy().tolist()
((None, 2, 2), [[[2.5, 2.5], [1.0, 1.0]]])
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import describe, owner
from tensorweave_layers.options.weights import (
    ConstraintLike,
    InitializerLike,
    RegularizerLike,
    WeightOptions,
    initial_value,
)

__all__ = ["Lookup", "weighted_bags"]

_COMBINERS = ("sum", "mean", "sqrtn")
_SPARSE_VALUES = ("weights", "ids")


def weighted_bags(table: Any, x: tf.SparseTensor, combiner: str = "sum") -> tf.Tensor:
    """One vector per row of ``x``: its columns' embeddings weighted by its values.

    ``combiner`` is ``"sum"``, ``"mean"`` (divided by the sum of the weights) or
    ``"sqrtn"`` (by the root of the sum of squared weights), as in
    ``tf.nn.embedding_lookup_sparse``; empty rows give zero vectors.

    >>> import tensorflow as tf
    >>> x = tf.sparse.from_dense([[1.0, 0.0, 3.0], [0.0, 0.0, 0.0]])
    >>> weighted_bags(tf.eye(3), x, "mean").numpy().tolist()
    [[0.25, 0.0, 0.75], [0.0, 0.0, 0.0]]
    """
    table = tf.convert_to_tensor(table) if not isinstance(table, tf.Variable) else table
    rows, cols = x.indices[:, 0], x.indices[:, 1]
    weights = tf.cast(x.values, table.dtype)
    vectors = tf.gather(table, cols) * weights[:, None]
    n = x.dense_shape[0]
    total = tf.math.unsorted_segment_sum(vectors, rows, n)
    if combiner == "sum":
        return total
    if combiner == "mean":
        scale = tf.math.unsorted_segment_sum(weights, rows, n)
    else:
        scale = tf.sqrt(tf.math.unsorted_segment_sum(weights * weights, rows, n))
    return tf.math.divide_no_nan(total, scale[:, None])


class Lookup(tw.Layer):
    """Look up the embedding of each id.

    Args:
        x: integer ids, dense of rank 1 or 2; or a sparse rank-2 input: weighted bags of
            ids ``(rows, vocab_size)`` (any numeric dtype) or, with
            ``sparse_values="ids"``, integer ids ``(batch, steps)``.
        vocab_size: the number of rows of the table (ids in ``[0, vocab_size)``).
        n_units: the embedding width.
        seq_len: pad or truncate the steps to this length (dense and ``"ids"`` inputs);
            for weighted bags, the number of consecutive rows that make one sequence.
        pad_id: an id (dense inputs) whose positions give zero vectors.
        combiner: how a sparse row's embeddings are reduced to one vector (``sum``/
            ``mean``/``sqrtn``); default ``sum`` for weighted bags, none (a sequence)
            for ``"ids"``.
        sparse_values: what a sparse input's values are: ``"weights"`` of the ids given
            by the columns (TensorX), or the ``"ids"`` themselves.
        batch_size: the output's fixed batch dimension (``None``: dynamic).
        batch_padding: pad a smaller batch with zero rows up to ``batch_size`` (with
            ``False``, any other batch size is an error).
        mask_zero: id 0 is padding: the output gets a ``padding_mask`` (``ids != 0``) that
            mask-aware layers downstream use (dense and ``"ids"`` inputs).
        w_init: initializer of the table (name or callable).
        dtype: the table's dtype.
        name, share_state_with: see ``tw.Layer``.
    """

    # gathers from the float32 table (a sparse gradient; no cast of the whole table)
    compute_precision = "float32"

    def __init__(
        self,
        x: tw.Layer,
        vocab_size: int,
        n_units: int,
        *,
        seq_len: int | None = None,
        pad_id: int | None = None,
        combiner: str | None = None,
        sparse_values: str = "weights",
        batch_size: int | None = None,
        batch_padding: bool = True,
        mask_zero: bool = False,
        w_init: InitializerLike = "tensorweave-layers:uniform",
        w_regularizer: RegularizerLike = None,
        w_constraint: ConstraintLike = None,
        dtype: tf.DType | str = tf.float32,
        name: str | None = None,
        share_state_with: Lookup | None = None,
    ) -> None:
        who = owner("Lookup", name)
        if sparse_values not in _SPARSE_VALUES:
            raise ValueError(
                f"{who}: sparse_values={sparse_values!r}; use one of {_SPARSE_VALUES}."
            )
        bags = x.sparse and sparse_values == "weights"
        if not x.dtype.is_integer and not (bags and (x.dtype.is_floating or x.dtype.is_bool)):
            raise TypeError(
                f"{who}: input {describe(x)} has dtype {x.dtype.name}; Lookup needs integer "
                "ids (or sparse weighted bags).\n  Fix: build the input with dtype=tf.int64, "
                "or use Linear for features."
            )
        rank = len(x.shape)
        if (x.sparse and rank != 2) or rank not in (1, 2):
            raise tw.ShapeError(
                f"{who}: input {describe(x)} must be ids of shape (batch,) or (batch, steps)"
                f"{' (sparse: rank 2)' if x.sparse else ''}.\n  Fix: Reshape it to (batch, steps)."
            )
        if int(vocab_size) < 1 or int(n_units) < 1:
            raise ValueError(f"{who}: vocab_size and n_units must be positive.")
        if bags and x.shape[1] is not None and x.shape[1] != int(vocab_size):
            raise tw.ShapeError(
                f"{who}: sparse input {describe(x)} holds weighted bags of ids in its columns, "
                f"so its width must be vocab_size={vocab_size}.\n  Fix: make the input "
                f"(None, {vocab_size}), or pass sparse_values='ids' if its values are ids."
            )
        if bags and combiner is None:
            combiner = "sum"
        if mask_zero and combiner is not None:
            raise tw.ArgumentError(
                f"{who}: mask_zero=True marks padding steps of ids, but {describe(x)} "
                f"{'holds weighted bags' if bags else 'is combined'} into one vector per row, "
                "which has no steps.\n  Fix: drop mask_zero (or combiner=), or give the next "
                "layer its padding as mask=."
            )
        if combiner is not None and (combiner not in _COMBINERS or not x.sparse):
            raise ValueError(
                f"{who}: combiner={combiner!r} needs a sparse input and one of {_COMBINERS}.\n"
                "  Fix: pass sparse ids (tw.Input(..., sparse=True)) or leave combiner=None."
            )
        if pad_id is not None and x.sparse:
            raise ValueError(
                f"{who}: pad_id is for dense ids; in sparse ids missing entries are padding."
            )
        sequence = rank == 2 and (combiner is None or bags)
        if seq_len is not None and not sequence:
            raise ValueError(f"{who}: seq_len applies only to sequence outputs (batch, steps).")
        seq_len = tw.positive_int(seq_len, "seq_len", who, optional=True)
        batch_size = tw.positive_int(batch_size, "batch_size", who, optional=True)
        units = int(n_units)
        if bags:
            shape: tuple[int | None, ...] = (
                (None, units) if seq_len is None else (None, seq_len, units)
            )
        elif combiner is not None or rank == 1:
            shape = (None, units)
        else:
            shape = (None, seq_len if seq_len is not None else x.shape[1], units)
        if batch_size is not None:
            shape = (batch_size, *shape[1:])
        self._cfg: dict[str, Any] = {
            "vocab": int(vocab_size),
            "units": units,
            "seq_len": seq_len,
            "pad": pad_id,
            "combiner": combiner,
            "bags": bags,
            "batch_size": batch_size,
            "batch_padding": bool(batch_padding),
        }
        self._w_init = tw.resolve("initializers", w_init, owner=who, option="w_init")
        self._weight_options = WeightOptions.resolve(who, w_regularizer, w_constraint=w_constraint)
        super().__init__(x, shape=shape, dtype=dtype, name=name, share_state_with=share_state_with)
        if mask_zero:
            self.padding_mask = tw.Lambda(
                self.mask_of,
                x,
                shape=shape[:-1],
                dtype=tf.bool,
                sparse=False,
                name=f"{self.name}_mask",
            )

    def init_state(self) -> None:
        """The embedding table ``(vocab_size, n_units)``."""
        cfg = self._cfg
        value = initial_value(
            self._w_init,
            (cfg["vocab"], cfg["units"]),
            self.dtype,
            owner=owner("Lookup", self.name),
            option="w_init",
        )
        self.state.embeddings = self._weight_options.weight(self.state, "embeddings", value)

    def compute(self, x: Any) -> tf.Tensor:
        """The embeddings of ``x``."""
        table, cfg = self.state.embeddings, self._cfg
        if cfg["bags"]:
            out = weighted_bags(table, x, cfg["combiner"])
            if cfg["seq_len"] is not None:
                n = cfg["seq_len"]  # a last, shorter sequence is padded with zero rows
                out = tf.pad(out, [[0, -tf.shape(out)[0] % n], [0, 0]])
                out = tf.reshape(out, [-1, n, cfg["units"]])
            return self._batch(out)
        if isinstance(x, tf.SparseTensor):
            if cfg["combiner"] is not None:
                return self._batch(
                    tf.nn.safe_embedding_lookup_sparse(table, x, None, combiner=cfg["combiner"])
                )
            rows = tf.nn.embedding_lookup(table, x.values)
            size = tf.concat([x.dense_shape, tf.constant([cfg["units"]], tf.int64)], axis=0)
            out = tf.scatter_nd(x.indices, rows, size)
        elif cfg["pad"] is not None:
            keep = tf.not_equal(x, cfg["pad"])
            out = tf.nn.embedding_lookup(table, tf.where(keep, x, tf.zeros_like(x)))
            out = out * tf.cast(keep, out.dtype)[..., None]
        else:
            out = tf.nn.embedding_lookup(table, x)
        return self._batch(self._steps(out))

    def mask_of(self, x: Any) -> tf.Tensor:
        """The padding mask of the output for ids ``x``: ``x != 0``, padded and truncated
        like the output (what ``padding_mask`` computes with ``mask_zero=True``)."""
        if isinstance(x, tf.SparseTensor):
            real = tf.cast(tf.not_equal(x.values, 0), tf.int32)
            keep = tf.scatter_nd(x.indices, real, x.dense_shape) > 0
        else:
            keep = tf.not_equal(x, tf.zeros([], x.dtype))
        return self._batch(self._steps(keep), shape=self.shape[:-1])

    def _steps(self, out: tf.Tensor) -> tf.Tensor:
        """Pad (with zeros, or False) or truncate the steps to ``seq_len``, if given."""
        n = self._cfg["seq_len"]
        if n is None:
            return out
        out = out[:, :n]
        pad = [[0, 0], [0, n - tf.shape(out)[1]]] + [[0, 0]] * (out.shape.rank - 2)
        return tf.pad(out, pad)

    def _batch(self, out: tf.Tensor, shape: tuple[int | None, ...] | None = None) -> tf.Tensor:
        """Pad the batch up to ``batch_size`` (if asked), and check the static shape."""
        size, cfg = self._cfg["batch_size"], self._cfg
        if size is not None and cfg["batch_padding"]:
            n = tf.shape(out)[0]
            check = tf.debugging.assert_less_equal(
                n,
                size,
                message=f"Lookup {self.name!r}: a batch larger than batch_size={size}",
            )
            with tf.control_dependencies([check]):
                pad = [[0, size - n]] + [[0, 0]] * (out.shape.rank - 1)
                out = tf.pad(out, pad)
        return tf.ensure_shape(out, self.shape if shape is None else shape)
