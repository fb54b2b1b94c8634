"""``Lookup``: embeddings of integer ids, for fixed or variable-length sequences.

The embedding table is one ``tf.Variable`` of shape ``(vocab_size, n_units)``, read with
``tf.nn.embedding_lookup`` so its gradient is a ``tf.IndexedSlices`` (only the rows used
are updated, as optimizers expect for large vocabularies). Inputs:

- dense ids ``(batch,)`` -> ``(batch, n_units)``; ``(batch, steps)`` -> ``(batch, steps,
  n_units)``; positions holding ``pad_id`` come out as zero vectors;
- sparse ids ``(batch, steps)`` (a ``tf.SparseTensor``, one row per variable-length
  sequence) -> dense ``(batch, steps, n_units)`` with zeros where no id is given; or, with
  ``combiner="sum" | "mean" | "sqrtn"``, one vector per row ``(batch, n_units)``
  (``tf.nn.embedding_lookup_sparse``, a bag of ids);
- ``seq_len=`` pads (with zeros) or truncates the steps to a fixed length.

>>> ids = tw.Input(shape=(None, None), dtype=tf.int64, name="ids", value=[[1, 2, 0]])
>>> emb = Lookup(ids, vocab_size=3, n_units=2, pad_id=0, w_init="ones", seq_len=4)
>>> emb.shape, emb().numpy()[0].tolist()
((None, 4, 2), [[1.0, 1.0], [1.0, 1.0], [0.0, 0.0], [0.0, 0.0]])
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._param_init import InitializerLike, initial_value
from tensorweave_layers._shapes import describe, owner

__all__ = ["Lookup"]

_COMBINERS = ("sum", "mean", "sqrtn")


class Lookup(tw.Layer):
    """Look up the embedding of each id.

    Args:
        x: integer ids, dense of rank 1 or 2, or sparse of rank 2.
        vocab_size: the number of rows of the table (ids in ``[0, vocab_size)``).
        n_units: the embedding width.
        seq_len: pad or truncate the steps to this length (sequence outputs only).
        pad_id: an id (dense inputs) whose positions give zero vectors.
        combiner: for sparse inputs, reduce each row to one vector (``sum``/``mean``/
            ``sqrtn``) instead of returning a sequence.
        w_init: initializer of the table (name or callable).
        dtype: the table's dtype.
        name, share_state_with: see ``tw.Layer``.
    """

    def __init__(
        self,
        x: tw.Layer,
        vocab_size: int,
        n_units: int,
        *,
        seq_len: int | None = None,
        pad_id: int | None = None,
        combiner: str | None = None,
        w_init: InitializerLike = "tensorweave-layers:uniform",
        dtype: tf.DType | str = tf.float32,
        name: str | None = None,
        share_state_with: Lookup | None = None,
    ) -> None:
        who = owner("Lookup", name)
        if not x.dtype.is_integer:
            raise TypeError(
                f"{who}: input {describe(x)} has dtype {x.dtype.name}; Lookup needs integer "
                "ids.\n  Fix: build the input with dtype=tf.int64, or use Linear for features."
            )
        rank = len(x.shape)
        if (x.sparse and rank != 2) or rank not in (1, 2):
            raise tw.ShapeError(
                f"{who}: input {describe(x)} must be ids of shape (batch,) or (batch, steps)"
                f"{' (sparse: rank 2)' if x.sparse else ''}.\n  Fix: Reshape it to (batch, steps)."
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
        if int(vocab_size) < 1 or int(n_units) < 1:
            raise ValueError(f"{who}: vocab_size and n_units must be positive.")
        sequence = rank == 2 and combiner is None
        if seq_len is not None and not sequence:
            raise ValueError(f"{who}: seq_len applies only to sequence outputs (batch, steps).")
        if combiner is not None or rank == 1:
            shape: tuple[int | None, ...] = (None, int(n_units))
        else:
            shape = (None, seq_len if seq_len is not None else x.shape[1], int(n_units))
        self._cfg = {
            "vocab": int(vocab_size),
            "units": int(n_units),
            "seq_len": seq_len,
            "pad": pad_id,
            "combiner": combiner,
        }
        self._w_init = tw.resolve("initializers", w_init, owner=who, option="w_init")
        super().__init__(x, shape=shape, dtype=dtype, name=name, share_state_with=share_state_with)

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
        self.state.embeddings = tf.Variable(value, name="embeddings")

    def compute(self, x: Any) -> tf.Tensor:
        """The embeddings of ``x``."""
        table, cfg = self.state.embeddings, self._cfg
        if isinstance(x, tf.SparseTensor):
            if cfg["combiner"] is not None:
                return tf.nn.safe_embedding_lookup_sparse(table, x, None, combiner=cfg["combiner"])
            rows = tf.nn.embedding_lookup(table, x.values)
            size = tf.concat([x.dense_shape, tf.constant([cfg["units"]], tf.int64)], axis=0)
            out = tf.scatter_nd(x.indices, rows, size)
        elif cfg["pad"] is not None:
            keep = tf.not_equal(x, cfg["pad"])
            out = tf.nn.embedding_lookup(table, tf.where(keep, x, tf.zeros_like(x)))
            out = out * tf.cast(keep, out.dtype)[..., None]
        else:
            out = tf.nn.embedding_lookup(table, x)
        if cfg["seq_len"] is not None:
            n = cfg["seq_len"]
            out = out[:, :n]
            out = tf.pad(out, [[0, 0], [0, n - tf.shape(out)[1]], [0, 0]])
        return tf.ensure_shape(out, self.shape)
