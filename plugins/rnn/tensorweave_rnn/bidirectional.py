"""``Bidirectional``: a forward and a backward ``RNN`` over the same sequence, merged.

The backward RNN runs with ``reverse=True``: its outputs stay aligned with the input steps,
and with ``lengths=``/``mask=`` it starts at each row's last real step. With
``return_sequences=False`` the forward half is the output at the last real step and the
backward half the output at the first step (the end of its run). Without ``lengths=`` or
``mask=``, the sequence's ``padding_mask`` is the mask (as for ``RNN``).

>>> import tensorweave as tw
>>> seq = tw.Input(batch_shape=(None, None, 3))
>>> Bidirectional(seq, cell="GRUCell.v1", n_units=4).shape  # the last step, as Keras
(None, 8)
>>> Bidirectional(seq, cell="GRUCell.v1", n_units=4, merge="sum", return_sequences=True).shape
(None, None, 4)
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_rnn.rnn import RNN

__all__ = ["Bidirectional"]

_MERGES = {
    "concat": lambda a, b: tf.concat([a, b], axis=-1),
    "sum": tf.add,
    "mul": tf.multiply,
    "ave": lambda a, b: (a + b) / 2.0,
}


class Bidirectional(tw.Layer):
    """Two RNNs, one per direction; outputs merged with ``merge``.

    Args:
        seq: the sequence layer.
        cell, n_units: the forward cell (see ``RNN``).
        backward_cell, backward_n_units: the backward cell (default: like the forward one,
            with its own weights).
        merge: ``"concat"`` (default), ``"sum"``, ``"mul"`` or ``"ave"``.
        lengths, mask, time_major, return_sequences, training: as for ``RNN``.
        **cell_options: passed to both cells.
    """

    compute_precision = "float32"  # as its two RNNs (see RNN)

    def __init__(
        self,
        seq: tw.Layer,
        *,
        cell: Any = "LSTMCell.v1",
        n_units: Any = None,
        backward_cell: Any = None,
        backward_n_units: Any = None,
        merge: str = "concat",
        lengths: tw.Layer | None = None,
        mask: tw.Layer | None = None,
        time_major: bool = False,
        return_sequences: bool = False,
        training: bool | None = None,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
        **cell_options: Any,
    ) -> None:
        if merge not in _MERGES:
            raise ValueError(
                f"Bidirectional: merge must be one of {sorted(_MERGES)}, not {merge!r}."
            )
        common: dict[str, Any] = dict(
            lengths=lengths,
            mask=mask,  # None: each RNN takes the sequence's padding mask itself
            time_major=time_major,
            return_sequences=return_sequences,
            training=training,
        )
        padding = seq.padding_mask if lengths is None and mask is None else None
        self._padded = padding is not None
        aux = [a for a in (lengths, mask, padding) if a is not None]
        if share_state_with is not None:
            per_use: dict[str, Any] = dict(time_major=time_major, return_sequences=return_sequences)
            if training is not None:
                per_use["training"] = training
            fw = share_state_with.state.forward.reuse_with(seq, *aux, **per_use)
            bw = share_state_with.state.backward.reuse_with(seq, *aux, **per_use)
        else:
            fw = RNN(seq, cell=cell, n_units=n_units, **common, **cell_options)
            bw = RNN(
                seq,
                cell=backward_cell if backward_cell is not None else cell,
                n_units=backward_n_units if backward_n_units is not None else n_units,
                reverse=True,
                **common,
                **cell_options,
            )
        self._fw = fw
        self._bw = bw
        self._merge_name = merge
        a, b = fw.shape[-1], bw.shape[-1]
        if merge != "concat" and a != b:
            raise tw.ShapeError(
                f"Bidirectional: merge={merge!r} needs equal widths, got forward {a} and "
                f"backward {b}. Fix: merge='concat' or the same n_units."
            )
        width = a + b if merge == "concat" else a
        shape = (*fw.shape[:-1], width)
        super().__init__(
            seq, *aux, shape=shape, dtype=seq.dtype, name=name, share_state_with=share_state_with
        )
        if return_sequences and lengths is None:
            self.padding_mask = aux[0] if aux else None

    def init_state(self) -> None:
        self.state.forward = self._fw
        self.state.backward = self._bw

    @property
    def forward(self) -> RNN:
        """The forward RNN."""
        rnn: RNN = self._fw
        return rnn

    @property
    def backward(self) -> RNN:
        """The backward (``reverse=True``) RNN."""
        rnn: RNN = self._bw
        return rnn

    def reuse_with(  # type: ignore[override]  # the sequence first, then lengths/mask
        self, seq: tw.Layer, *rest: tw.Layer, **options: Any
    ) -> Bidirectional:
        """Both RNNs on other inputs (sequence, then lengths/mask if any), sharing weights;
        ``options`` are per use (``return_sequences``, ``time_major``, ``training``). A
        mask this node took from its sequence's ``padding_mask`` may be left out: the new
        sequence's is used."""
        _, kwargs = self._tw_init_args
        cfg = {k: v for k, v in kwargs.items() if k not in ("lengths", "mask", "name")}
        if kwargs.get("lengths") is not None:
            cfg["lengths"] = rest[0]
        elif kwargs.get("mask") is not None or (self._padded and rest):
            cfg["mask"] = rest[0]
        cfg.update(options)
        cfg["share_state_with"] = self
        return Bidirectional(seq, **cfg)

    def compute(self, seq: tf.Tensor, *aux: tf.Tensor) -> tf.Tensor:
        forward = self._fw.compute(seq, *aux)
        backward = self._bw.compute(seq, *aux)
        return _MERGES[self._merge_name](forward, backward)
