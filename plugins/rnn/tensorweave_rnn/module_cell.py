"""``ModuleCell``: any ``tw.Module`` of layers ``(x, h) -> new h`` as a first-class cell.

The module's two inputs are the step input and the previous hidden state; its output is
the new hidden state, which is also the cell's output (``state_size == [n_units]``). Give
the module itself (``module=``) or a function that builds it on two ``tw.Input`` s
(``build=``, called once per cell, so each cell gets its own weights). Input, state and
output dropout work as for every cell (the state mask applies to ``h`` as the module sees
it); there are no fused weights to DropConnect.

A minimal gated unit (Zhou et al., 2016) from ``tw`` ops, its weights in ``Lambda`` s:

>>> import tensorflow as tf, tensorweave as tw
>>> def dense(x, n, add_bias=True):
...     w = tf.Variable(tf.random.normal([x.n_units, n]) * 0.3)
...     b = tf.Variable(tf.zeros([n]))
...     return tw.Lambda(lambda t: t @ w + (b if add_bias else 0.0), x, variables=[w, b])
>>> def minimal_gated(x, h):
...     f = tw.ops.sigmoid(dense(x, h.n_units) + dense(h, h.n_units, add_bias=False))
...     candidate = tw.ops.tanh(dense(x, h.n_units) + dense(f * h, h.n_units, add_bias=False))
...     return (1.0 - f) * h + f * candidate
>>> x = tw.Input(n_units=3)
>>> cell = ModuleCell(x, n_units=4, build=minimal_gated)
>>> cell.state_size, len(cell.trainable_variables)
([4], 8)
>>> seq = tw.Input(batch_shape=(None, None, 3))
>>> tw.layers["RNN.v1"](seq, cell=cell).shape  # the last step's output, as Keras
(None, 4)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensorweave as tw
from tensorweave_rnn.cell import Cell

__all__ = ["ModuleCell"]


class ModuleCell(Cell):
    """A single-state cell whose step is a ``tw.Module`` ``(x, h) -> new h``.

    Args:
        x, *previous_state: as for every cell (one state of width ``n_units``).
        n_units: the state width (default: the module's output width).
        module: a ``tw.Module`` with inputs ``(x-like, h-like)``; used (shared) as is.
        build: ``build(x_input, h_input) -> layer``, makes the module's graph instead.
        **options: dropout options of ``Cell``.
    """

    # under mixed precision the step module's layers decide their own dtypes
    compute_precision = "inputs"

    dropconnect_weights = ()

    def __init__(
        self,
        x: tw.Layer,
        *previous_state: tw.Layer,
        n_units: int | None = None,
        module: tw.Module | None = None,
        build: Callable[[tw.Layer, tw.Layer], tw.Layer] | None = None,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
        **options: Any,
    ) -> None:
        label = f"ModuleCell{f' {name!r}' if name else ''}"
        if share_state_with is None and (module is None) == (build is None):
            raise TypeError(f"{label}: pass exactly one of module= or build=.")
        if module is not None and share_state_with is None:
            n_units = _check_module(label, module, x, n_units)
        if n_units is None and share_state_with is not None:
            n_units = share_state_with.n_units
        if n_units is None:
            raise TypeError(f"{label}: n_units= is needed with build=.")
        self._build = build
        self._given_module = module
        super().__init__(
            x,
            *previous_state,
            n_units=n_units,
            name=name,
            share_state_with=share_state_with,
            **options,
        )

    def init_state(self) -> None:
        module = self.__dict__.get("_given_module")
        if module is None:
            x_in = tw.Input(n_units=self.input_size, dtype=self.dtype, name=f"{self.name}_x")
            h_in = tw.Input(n_units=self.n_units, dtype=self.dtype, name=f"{self.name}_h")
            assert self._build is not None  # module= or build= was checked at construction
            out = self._build(x_in, h_in)
            module = tw.Module([x_in, h_in], out, name=f"{self.name}_step")
            _check_module(f"ModuleCell {self.name!r}", module, self.inputs[0], self.n_units)
        self.state.module = module

    @property
    def module(self) -> tw.Module:
        """The module that computes one step."""
        module: tw.Module = self.state.module
        return module

    def transition(self, x, states, recurrent, weights):  # type: ignore[no-untyped-def]
        h = self.state.module.compute(x, recurrent)
        return h, [h]


def _check_module(label: str, module: Any, x: tw.Layer, n_units: int | None) -> int:
    if not isinstance(module, tw.Module):
        raise TypeError(f"{label}: module= must be a tw.Module, got {type(module).__name__}.")
    ins = module.inputs
    out_width = module.shape[-1] if len(module.shape) == 2 else None
    n = n_units if n_units is not None else out_width
    want = [(None, x.shape[-1]), (None, n)]
    got = [i.shape for i in ins]
    if len(ins) != 2 or any(tuple(g) != w for g, w in zip(got, want, strict=False)):
        raise tw.ShapeError(
            f"{label}: the module's inputs have shapes {got}; a cell module takes (x, h) with "
            f"shapes {want}."
        )
    if out_width != n:
        raise tw.ShapeError(
            f"{label}: the module's output has shape {module.shape}, but the state is "
            f"(None, {n}). Fix: make the module return the new hidden state."
        )
    assert isinstance(n, int)
    return n
