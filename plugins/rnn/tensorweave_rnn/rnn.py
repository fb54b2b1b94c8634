"""``RNN``: any cell unrolled over a sequence in one ``tf.while_loop``.

``RNN(seq, cell="LSTMCell.v1", n_units=200)`` builds the cell once (its variables live in
this layer's state) and, in ``compute``, runs ``cell.step`` inside a ``tf.while_loop``
over a ``TensorArray``: no Python loop over time, and under ``tw.compile`` new batch sizes
and sequence lengths do not retrace (a short time axis known when tracing is unrolled
instead; the loops live in ``tensorweave_rnn.loop``). Options:

- ``time_major``: the sequence is ``(time, batch, features)`` (default batch-major);
- ``lengths=`` (a ``(batch,)`` integer layer) or ``mask=`` (``(batch, time)``, or
  ``(time, batch)`` when time-major): at padded steps states carry through unchanged and
  outputs are zero; without either, the sequence's ``padding_mask`` (e.g. from
  ``Lookup(..., mask_zero=True)``) is the mask, and with ``return_sequences`` the output
  keeps it;
- ``reverse``: run from the last step to the first; outputs stay aligned with the input
  steps, and with lengths/masks the run effectively starts at each row's last real step;
- ``return_sequences=True``: return every step's output (by default, as in Keras, the
  output of the last real step only);
- ``*initial_state``: layers giving the initial states (default zeros);
- ``final_state``: accessor layers for the final states (no recomputation);
- ``stateful``: carry the final states into the next call (reset by ``reset()`` or by a
  new batch size);
- ``cell=[...]`` with ``n_units=[...]``: a stack of cells.

>>> import numpy as np, tensorweave as tw
>>> seq = tw.Input(batch_shape=(None, None, 3), name="seq")
>>> rnn = RNN(seq, cell="GRUCell.v1", n_units=4, return_sequences=True)
>>> h_final, = rnn.final_state
>>> out, h = tw.compile(tw.Graph.build(seq, [rnn, h_final]))(np.ones((2, 5, 3), "float32"))
>>> out.shape.as_list(), h.shape.as_list(), bool(np.allclose(out[:, -1], h))
([2, 5, 4], [2, 4], True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_rnn.loop import UNROLL_MAX as UNROLL_MAX  # re-exported: it lives in loop
from tensorweave_rnn.loop import TimeLoop, time_mask
from tensorweave_rnn.resolve import per_use
from tensorweave_rnn.stacked import make_cell

__all__ = ["RNN", "FinalState"]

_CONFIG_SKIP = ("lengths", "mask", "name", "share_state_with")


class RNN(tw.Layer):
    """Unroll a cell over a sequence (see the module docstring).

    Args:
        seq: the sequence layer, ``(None, None, features)``.
        *initial_state: optional initial-state layers, one per ``cell.state_size`` entry.
        cell: a registered cell name, a cell factory, a built cell, or a list (a stack).
        n_units: the cell width (one per cell for a stack).
        lengths, mask: optional padding information (give one).
        time_major, reverse, return_sequences, stateful: see the module docstring.
        training: the per-use switch of the cell's dropout/DropConnect.
        **cell_options: passed to the cell factory (``dropout=``, ``recurrent_dropout=``,
            ``reset_after=``…).
    """

    # under mixed precision the recurrence stays float32: its state accumulates over the
    # steps, and its per-step products are too small to gain from bfloat16 (measured)
    compute_precision = "float32"

    def __init__(
        self,
        seq: tw.Layer,
        *initial_state: tw.Layer,
        cell: Any = "LSTMCell.v1",
        n_units: int | Sequence[int] | None = None,
        lengths: tw.Layer | None = None,
        mask: tw.Layer | None = None,
        time_major: bool = False,
        reverse: bool = False,
        return_sequences: bool = False,
        stateful: bool = False,
        training: bool | None = None,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
        **cell_options: Any,
    ) -> None:
        cell_label = _cell_label(cell)
        label = f"RNN{f' {name!r}' if name else ''} (cell {cell_label!r})"
        if not isinstance(seq, tw.Layer):
            raise TypeError(f"{label}: seq is a {type(seq).__name__}, not a tensorweave Layer.")
        layout = "(time, batch, features)" if time_major else "(batch, time, features)"
        if len(seq.shape) != 3 or seq.shape[-1] is None:
            raise tw.ShapeError(
                f"{label}: the sequence {seq.name!r} has shape {seq.shape} (rank "
                f"{len(seq.shape)}), but RNN needs rank 3 {layout} with known features.\n  "
                "Fix: build the input as tw.Input(batch_shape=(None, None, features)); for a single "
                "step, call the cell directly."
            )
        if lengths is not None and mask is not None:
            raise ValueError(f"{label}: give lengths= or mask=, not both.")
        padded = lengths is None and mask is None and seq.padding_mask is not None
        if padded:
            mask = seq.padding_mask
        aux = lengths if lengths is not None else mask
        _check_aux(label, lengths, mask)
        if share_state_with is not None:
            if bool(stateful) != share_state_with._cfg["stateful"]:
                raise ValueError(f"{label}: reuse_with cannot change stateful=.")
            built = per_use(share_state_with.state.cell, {"training": training})
        else:
            options = dict(cell_options, training=training)
            built = make_cell(
                cell,
                input_size=seq.shape[-1],
                n_units=n_units,
                dtype=seq.dtype,
                options=options,
                who=label,
            )
        sizes = list(built.state_size)
        if initial_state:
            if stateful:
                raise ValueError(f"{label}: a stateful RNN takes its initial state from its carry.")
            _check_initial(label, built, initial_state, sizes)
        self._cell = built
        self._cfg: dict[str, Any] = {
            "aux": "lengths" if lengths is not None else "mask" if mask is not None else None,
            "time_major": bool(time_major),
            "reverse": bool(reverse),
            "return_sequences": bool(return_sequences),
            "stateful": bool(stateful),
            "n_init": len(initial_state),
            "padding_mask": padded,  # the mask came from the sequence, not mask=
        }
        self._cache: tuple[Any, list[Any]] | None = None
        self._final_layers: list[FinalState] | None = None
        n = built.shape[-1]
        shape = (None, None, n) if return_sequences else (None, n)
        inputs = [seq] + ([aux] if aux is not None else []) + list(initial_state)
        super().__init__(
            *inputs, shape=shape, dtype=seq.dtype, name=name, share_state_with=share_state_with
        )
        if return_sequences:
            self.padding_mask = mask

    # -- state -----------------------------------------------------------------------------
    def init_state(self) -> None:
        self.state.cell = self._cell
        if self._cfg["stateful"]:
            self.state.carry = [
                tf.Variable(
                    tf.zeros([0, w], self.dtype),
                    shape=tf.TensorShape([None, w]),
                    trainable=False,
                    name=f"carry_{i}",
                )
                for i, w in enumerate(self._cell.state_size)
            ]

    @property
    def cell(self) -> tw.Layer:
        """The cell this layer unrolls (a per-use view when reused with options)."""
        cell: tw.Layer = self._cell
        return cell

    @property
    def state_size(self) -> list[int]:
        """The cell's state widths."""
        return list(self._cell.state_size)

    def reset(self) -> None:
        """Forget the carried state of a stateful RNN (the next call starts from zeros)."""
        if not self._cfg["stateful"]:
            raise ValueError(f"RNN {self.name!r} is not stateful; there is nothing to reset.")
        for v, w in zip(self.state.carry, self.state_size, strict=True):
            v.assign(tf.zeros([0, w], self.dtype))

    @property
    def final_state(self) -> list[tw.Layer]:
        """One layer per final state (read from the same run as this layer's output)."""
        if self._final_layers is None:
            layers = [FinalState(self, *self.inputs, index=i) for i in range(len(self.state_size))]
            self._final_layers = layers
        return list(self._final_layers)

    def reuse_with(  # type: ignore[override]  # explicit per-use options
        self,
        seq: tw.Layer,
        *rest: tw.Layer,
        training: bool | None = None,
        return_sequences: bool | None = None,
        reverse: bool | None = None,
        time_major: bool | None = None,
        name: str | None = None,
    ) -> RNN:
        """This RNN on other inputs, in the order of ``inputs`` (sequence, lengths or mask
        if it had one, initial states), sharing the cell's variables. A mask this node took
        from its sequence's ``padding_mask`` may be left out: the new sequence's is used.

        Initial states not given are the original's (as TensorX): ``rnn.reuse_with(seq2)``
        starts from the same initial-state layers, ``rnn.reuse_with(seq2, h0)`` from
        ``h0``. The per-use options (``training``, ``return_sequences``, ``reverse``,
        ``time_major``) keep this node's values unless given; the cell and its options
        belong to the shared state and cannot change on reuse.
        """
        _, kwargs = self._tw_init_args
        cfg = {k: v for k, v in kwargs.items() if k not in _CONFIG_SKIP}
        aux = self._cfg["aux"]
        if self._cfg["padding_mask"] and len(rest) in (0, self._cfg["n_init"]):
            aux = None  # the new sequence's padding mask, if any, is picked up again
        if aux is not None:
            if not rest:
                raise TypeError(f"RNN {self.name!r}.reuse_with needs the {aux} input too.")
            cfg[aux] = rest[0]
            rest = rest[1:]
        if not rest and self._cfg["n_init"]:
            rest = self.inputs[len(self.inputs) - self._cfg["n_init"] :]
        given = {
            "training": training,
            "return_sequences": return_sequences,
            "reverse": reverse,
            "time_major": time_major,
        }
        cfg.update({k: v for k, v in given.items() if v is not None})
        return RNN(seq, *rest, name=name, share_state_with=self, **cfg)

    # -- running ---------------------------------------------------------------------------
    def compute(self, seq: tf.Tensor, *rest: tf.Tensor) -> tf.Tensor:
        aux = rest[0] if self._cfg["aux"] is not None else None
        initial = rest[1:] if aux is not None else rest
        output, states = self.run(seq, aux, list(initial))
        self._cache = (output, states)
        return output

    @tf.autograph.experimental.do_not_convert  # type: ignore[untyped-decorator]
    def run(
        self, seq: tf.Tensor, aux: tf.Tensor | None = None, initial: list[tf.Tensor] | None = None
    ) -> tuple[tf.Tensor, list[tf.Tensor]]:
        """Run the loop on tensors: ``(output, final_states)``."""
        cfg = self._cfg
        cell = self._cell
        seq = tf.convert_to_tensor(seq)
        xs = seq if cfg["time_major"] else tf.transpose(seq, [1, 0, 2])
        dims = tf.shape(xs)
        steps, batch = dims[0], dims[1]
        dtype = xs.dtype
        mask = time_mask(aux, cfg["aux"], steps, time_major=cfg["time_major"])
        if initial:
            states = [tf.convert_to_tensor(s) for s in initial]
        elif cfg["stateful"]:
            states = [
                _from_carry(v, batch, w, dtype)
                for v, w in zip(self.state.carry, self.state_size, strict=True)
            ]
        else:
            states = [tf.zeros([batch, w], dtype) for w in self.state_size]
        context = cell.begin(batch, dtype) if hasattr(type(cell), "begin") else None
        kwargs = {} if context is None else {"context": context}
        step = cell.step
        if context is not None and hasattr(type(cell), "project_inputs"):
            projected = cell.project_inputs(xs, context)
            if projected is not None:
                xs = projected  # x @ kernel + bias for all steps: one matmul, not T
        who = f"RNN {self.name!r}"
        loop = TimeLoop(
            cell, step, kwargs, who, reverse=cfg["reverse"], sequences=cfg["return_sequences"]
        )
        result, final = loop.run(xs, mask, states, steps, batch)
        final = list(final)
        if cfg["return_sequences"] and not cfg["time_major"]:
            result = tf.transpose(result, [1, 0, 2])
        if cfg["stateful"]:
            for v, s in zip(self.state.carry, final, strict=True):
                v.assign(s)
        return result, final


class FinalState(tw.Layer):
    """The ``index``-th final state of an ``RNN`` (built by ``rnn.final_state``).

    It reads the states of the run that produced the RNN's output; only if that run is
    not available (the output came from elsewhere) does it run the loop again.
    """

    compute_precision = "float32"  # as the RNN it reads (the same run's states)

    def __init__(
        self,
        rnn: RNN,
        *rnn_inputs: tw.Layer,
        index: int = 0,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        if not isinstance(rnn, RNN):
            raise TypeError(f"FinalState reads an RNN layer, got {type(rnn).__name__}.")
        self._rnn = rnn
        self._index = int(index)
        super().__init__(
            rnn,
            *rnn_inputs,
            shape=(None, rnn.state_size[index]),
            dtype=rnn.dtype,
            name=name or f"{rnn.name}_state{index}",
            share_state_with=share_state_with,
        )

    def compute(self, output: tf.Tensor, *rnn_inputs: tf.Tensor) -> tf.Tensor:
        cache = self._rnn._cache
        if cache is not None and cache[0] is output:
            return cache[1][self._index]
        rnn = self._rnn
        k = 1 if rnn._cfg["aux"] is not None else 0
        aux = rnn_inputs[1] if k else None
        _, states = rnn.run(rnn_inputs[0], aux, list(rnn_inputs[1 + k :]))
        return states[self._index]


def _cell_label(cell: Any) -> str:
    if isinstance(cell, str):
        return cell
    if isinstance(cell, tw.Layer):
        return f"{type(cell).__name__} {cell.name}"
    if isinstance(cell, (list, tuple)):
        return "[" + ", ".join(_cell_label(c) for c in cell) + "]"
    return str(getattr(cell, "__qualname__", type(cell).__name__)).rsplit("<locals>.", 1)[-1]


def _from_carry(var: tf.Variable, batch: tf.Tensor, width: int, dtype: tf.DType) -> tf.Tensor:
    value = var.read_value()
    return tf.cond(
        tf.equal(tf.shape(value)[0], batch),
        lambda: value,
        lambda: tf.zeros([batch, width], dtype),
    )


def _check_aux(label: str, lengths: Any, mask: Any) -> None:
    if lengths is not None:
        if not isinstance(lengths, tw.Layer):
            raise TypeError(f"{label}: lengths= must be a layer, got {type(lengths).__name__}.")
        if len(lengths.shape) != 1 or not lengths.dtype.is_integer:
            raise tw.ShapeError(
                f"{label}: lengths {lengths.name!r} has shape {lengths.shape} dtype "
                f"{lengths.dtype.name}; expected (None,) integers, one length per row."
            )
    if mask is not None:
        if not isinstance(mask, tw.Layer):
            raise TypeError(f"{label}: mask= must be a layer, got {type(mask).__name__}.")
        if len(mask.shape) != 2:
            raise tw.ShapeError(
                f"{label}: mask {mask.name!r} has shape {mask.shape}; expected rank 2, one "
                "value per (row, step) in the sequence's layout."
            )


def _check_initial(label: str, cell: tw.Layer, initial: Sequence[Any], sizes: list[int]) -> None:
    got = [getattr(s, "shape", type(s).__name__) for s in initial]
    want = [(None, w) for w in sizes]
    if len(initial) != len(sizes) or any(
        not isinstance(s, tw.Layer) or len(s.shape) != 2 or s.shape[-1] != w
        for s, w in zip(initial, sizes, strict=False)
    ):
        raise tw.ShapeError(
            f"{label}: initial states {got} do not fit cell {type(cell).__name__} "
            f"{cell.name!r} with state_size {sizes}: expected {want}."
        )
