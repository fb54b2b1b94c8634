"""``StackedCell``: several cells as one, each feeding its output to the next.

Its states are the sub-cells' states in order (``state_size`` is their concatenation) and
its output is the last cell's output. ``RNN(seq, cell=[...])`` builds one. Options such as
dropout go to every sub-cell; the per-use ``training=`` reaches them through ``reuse_with``.

>>> import tensorweave as tw
>>> x = tw.Input(n_units=3)
>>> stack = StackedCell(x, cells=["LSTMCell.v1", "GRUCell.v1"], n_units=[4, 2])
>>> stack.state_size, stack.shape
([4, 4, 2], (None, 2))

``make_cell`` builds any cell specification ``RNN``, ``Bidirectional`` and ``StackedCell``
accept: a registered name, a cell class or factory, an already built cell (its weights are
shared), or a list of these (a ``StackedCell``).

>>> cell = make_cell("GRUCell.v1", input_size=3, n_units=4, who="demo")
>>> type(cell).__name__, cell.state_size
('GRUCell', [4])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_rnn.cell import Cell
from tensorweave_rnn.contract import check_cell
from tensorweave_rnn.resolve import PER_USE, cell_factory, per_use

__all__ = ["StackedCell", "make_cell"]


class StackedCell(Cell):
    """Cells applied in sequence within one step.

    Args:
        x, *previous_state: as for every cell (one state per sub-cell state).
        cells: the sub-cells (names, factories or built cells).
        n_units: one width for all, or one per sub-cell.
        **options: passed to every sub-cell (``dropout=``, ``reset_after=``…).
    """

    dropconnect_weights = ()

    def __init__(
        self,
        x: tw.Layer,
        *previous_state: tw.Layer,
        cells: Sequence[Any],
        n_units: int | Sequence[int] | None = None,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
        **options: Any,
    ) -> None:
        label = f"StackedCell{f' {name!r}' if name else ''}"
        if share_state_with is not None:
            built = [per_use(c, options) for c in share_state_with.state.cells]
        else:
            if not cells:
                raise ValueError(f"{label}: cells= needs at least one cell.")
            units = list(n_units) if isinstance(n_units, (list, tuple)) else [n_units] * len(cells)
            if len(units) != len(cells):
                raise ValueError(
                    f"{label}: {len(cells)} cells but {len(units)} n_units {units}; give one "
                    "width or one per cell."
                )
            built = []
            width = x.shape[-1] if len(x.shape) == 2 else None
            for i, (spec, n) in enumerate(zip(cells, units, strict=True)):
                if width is None:
                    break  # Cell.__init__ reports the bad input shape
                cell = make_cell(
                    spec,
                    input_size=width,
                    n_units=n,
                    dtype=x.dtype,
                    options=options,
                    who=f"{label} (cell {i})",
                )
                built.append(cell)
                width = cell.n_units
        self._cells = built
        regularization = {k: v for k, v in options.items() if k in PER_USE}
        super().__init__(
            x,
            *previous_state,
            n_units=int(built[-1].n_units or 1) if built else 1,
            name=name,
            share_state_with=share_state_with,
            **regularization,
        )

    def state_size_for(self, n_units: int) -> list[int]:
        return [w for c in self._cells for w in c.state_size]

    def init_state(self) -> None:
        self.state.cells = list(self._cells)

    @property
    def cells(self) -> list[tw.Layer]:
        """The sub-cells, input side first."""
        return list(self._cells)

    def begin(self, batch_size: Any, dtype: tf.DType | None = None) -> Any:
        """Each sub-cell's per-sequence context (``None`` for cells without ``begin``)."""
        return [
            c.begin(batch_size, dtype) if hasattr(type(c), "begin") else None for c in self._cells
        ]

    def project_inputs(self, xs: tf.Tensor, context: Any) -> tf.Tensor | None:
        """The first sub-cell's input projection, if it offers one."""
        first = self._cells[0]
        ctx = context[0] if context is not None else None
        if ctx is None or not hasattr(type(first), "project_inputs"):
            return None
        projected: tf.Tensor | None = first.project_inputs(xs, ctx)
        return projected

    def step(
        self, x: tf.Tensor, *states: tf.Tensor, context: Any = None
    ) -> tuple[tf.Tensor, list[tf.Tensor]]:
        """Run each sub-cell on the previous one's output."""
        contexts = context if context is not None else [None] * len(self._cells)
        new_states: list[tf.Tensor] = []
        offset = 0
        out = x
        for cell, ctx in zip(self._cells, contexts, strict=True):
            k = len(cell.state_size)
            mine = states[offset : offset + k]
            offset += k
            if ctx is None:
                out, new = cell.step(out, *mine)
            else:
                out, new = cell.step(out, *mine, context=ctx)
            new_states.extend(new)
        return out, new_states


def make_cell(
    spec: Any,
    *,
    input_size: int,
    n_units: int | Sequence[int] | None,
    who: str,
    dtype: tf.DType = tf.float32,
    options: dict[str, Any] | None = None,
) -> tw.Layer:
    """Build the cell ``spec`` for step inputs of width ``input_size`` and check it."""
    options = {k: v for k, v in (options or {}).items() if v is not None or k not in PER_USE}
    if isinstance(spec, tw.Layer):
        check_cell(spec, who)
        width = spec.inputs[0].shape[-1] if spec.inputs else None
        if width != input_size:
            raise tw.ShapeError(
                f"{who}: the given cell {spec.name!r} takes steps of width {width}, but the "
                f"sequence has {input_size} features."
            )
        return per_use(spec, options)
    x = tw.Input(n_units=input_size, dtype=dtype, name="step_input")
    if isinstance(spec, (list, tuple)):
        cell: tw.Layer = StackedCell(x, cells=list(spec), n_units=n_units, **options)
    else:
        if n_units is None or not isinstance(n_units, int):
            raise TypeError(f"{who}: n_units= must be an int for one cell, got {n_units!r}.")
        factory = cell_factory(spec, who)
        try:
            cell = factory(x, n_units=n_units, **options)
        except TypeError as err:
            label = spec if isinstance(spec, str) else getattr(spec, "__qualname__", spec)
            raise TypeError(f"{who}: building cell {label!r} failed: {err}") from err
    check_cell(cell, who)
    return cell
