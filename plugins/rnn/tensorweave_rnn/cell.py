"""``Cell``: the base class of the pack's cells (the contract, dropout and DropConnect).

A cell is a layer built on the step input and the previous states,
``Cell(x, *previous_state, n_units=...)``; its output is the new hidden output. The same
maths is available on tensors as ``step(x, *states) -> (output, [new_states])``, which is
what ``RNN`` calls inside its ``tf.while_loop``. Leaving out ``previous_state`` starts
from zeros.

Regularisation, active only while ``training`` (Keras's names):

- variational dropout of the input (``dropout``), of the recurrent input (the first state,
  as fed to the recurrent weights: ``recurrent_dropout``) and of the output
  (``output_dropout``), with one mask per sequence shared by every step;
- DropConnect of the input weights ``kernel`` (``dropconnect``) and recurrent weights
  ``recurrent_kernel`` (``recurrent_dropconnect``), one dropped matrix per sequence.

``begin(batch_size)`` draws those masks once; ``RNN`` calls it before its loop and passes
the result to every ``step`` (``context=``). Called without a context, ``step`` draws
fresh ones, which is right for a cell used on its own.

>>> import tensorflow as tf, tensorweave as tw
>>> from tensorweave_rnn.cells import RNNCell
>>> x, h = tw.Input(n_units=3), tw.Input(n_units=2)
>>> cell = RNNCell(x, h, n_units=2)
>>> cell.shape, cell.state_size
((None, 2), [2])
>>> out, [h1] = cell.step(tf.ones([4, 3]), tf.zeros([4, 2]))
>>> out.shape.as_list(), bool(tf.reduce_all(out == h1))
([4, 2], True)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import tensorflow as tf

import tensorweave as tw

__all__ = ["Cell", "StepContext"]

_RATES = (
    "dropout",
    "recurrent_dropout",
    "output_dropout",
    "dropconnect",
    "recurrent_dropconnect",
)


@dataclass
class StepContext:
    """What stays fixed over one sequence: dropout masks and the weights to use."""

    input_mask: tf.Tensor | None = None
    state_mask: tf.Tensor | None = None
    output_mask: tf.Tensor | None = None
    weights: dict[str, Any] = field(default_factory=dict)
    projected: bool = False  # steps receive ``project_inputs`` rows instead of inputs


class Cell(tw.Layer):
    """Base class of recurrent cells; subclasses define ``init_state`` and ``transition``.

    Args:
        x: the step input layer, shape ``(None, in)``.
        *previous_state: one layer per entry of ``state_size`` (or none: zeros).
        n_units: the width of the output (and of each state, for the standard cells).
        dropout, recurrent_dropout, output_dropout: variational dropout rates of the input,
            the recurrent input and the output.
        dropconnect, recurrent_dropconnect: DropConnect rates of ``kernel`` and
            ``recurrent_kernel``.
        training: ``False`` turns dropout and DropConnect off (e.g. in
            ``reuse_with(..., training=False)`` for evaluation; ``tw.with_options`` and
            ``Module.reuse_with`` pass it).
    """

    #: the weights DropConnect may drop: ``(state attribute, rate option)``
    dropconnect_weights: tuple[tuple[str, str], ...] = (
        ("kernel", "dropconnect"),
        ("recurrent_kernel", "recurrent_dropconnect"),
    )

    def __init__(
        self,
        x: tw.Layer,
        *previous_state: tw.Layer,
        n_units: int,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        output_dropout: float = 0.0,
        dropconnect: float = 0.0,
        recurrent_dropconnect: float = 0.0,
        training: bool = True,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        label = f"{type(self).__name__}{f' {name!r}' if name else ''}"
        if not isinstance(x, tw.Layer):
            raise TypeError(f"{label}: x is a {type(x).__name__}, not a tensorweave Layer.")
        if len(x.shape) != 2 or x.shape[-1] is None:
            raise tw.ShapeError(
                f"{label}: the step input {x.name!r} has shape {x.shape}; a cell takes one "
                "step, shape (batch, features) with known features. Fix: unroll sequences "
                "with tw.layers['RNN.v1'](seq, cell=...)."
            )
        if not isinstance(n_units, int) or isinstance(n_units, bool) or n_units <= 0:
            raise ValueError(f"{label}: n_units must be a positive int, got {n_units!r}.")
        rates = dict(
            zip(
                _RATES,
                (dropout, recurrent_dropout, output_dropout, dropconnect, recurrent_dropconnect),
                strict=True,
            )
        )
        for key, rate in rates.items():
            if not 0.0 <= float(rate) < 1.0:
                raise ValueError(f"{label}: {key} must be in [0, 1), got {rate!r}.")
        allowed = {opt for _, opt in self.dropconnect_weights}
        for key in ("dropconnect", "recurrent_dropconnect"):
            if rates[key] and key not in allowed:
                raise ValueError(f"{label}: {key} is not supported (no weights to drop).")
        self._rates = rates
        self.training = bool(training)
        self._active = self.training
        self._in_units = int(x.shape[-1])
        sizes = [int(w) for w in self.state_size_for(n_units)]
        self._state_size = sizes
        _check_states(label, previous_state, sizes)
        super().__init__(
            x,
            *previous_state,
            shape=(None, n_units),
            dtype=x.dtype,
            name=name,
            share_state_with=share_state_with,
        )
        if self._active and any(rates.values()):
            self.state.generator()  # the masks' random state, checkpointed with the cell

    # -- the contract ---------------------------------------------------------------------
    def state_size_for(self, n_units: int) -> list[int]:
        """The state widths of a cell with ``n_units`` (default: one state of ``n_units``)."""
        return [n_units]

    @property
    def state_size(self) -> list[int]:
        """The width of each state, in the order ``step`` takes and returns them."""
        return list(self._state_size)

    @property
    def n_units(self) -> int:
        """The width of the output (always known for a cell)."""
        return int(self.shape[-1])  # type: ignore[arg-type]

    @property
    def input_size(self) -> int:
        """The width of the step input."""
        return int(self._in_units)

    @property
    def rates(self) -> dict[str, float]:
        """The dropout and DropConnect rates, by option name."""
        return dict(self._rates)

    @property
    def regularized(self) -> bool:
        """Deprecated name of ``training``: whether dropout/DropConnect are active."""
        return bool(self._active)

    def zero_state(self, batch_size: Any, dtype: tf.DType | None = None) -> list[tf.Tensor]:
        """One zero tensor ``(batch_size, w)`` per state."""
        return [tf.zeros([batch_size, w], dtype or self.dtype) for w in self._state_size]

    def begin(self, batch_size: Any, dtype: tf.DType | None = None) -> StepContext:
        """Draw this sequence's dropout masks and DropConnect weights (see module doc)."""
        dtype = dtype or self.dtype
        ctx = StepContext()
        rates = self._rates
        active = self._active
        rng = self.state.generator() if active and any(rates.values()) else None
        if active and rates["dropout"]:
            ctx.input_mask = _mask(rng, [batch_size, self._in_units], rates["dropout"], dtype)
        if active and rates["recurrent_dropout"]:
            width = self._state_size[0]
            ctx.state_mask = _mask(rng, [batch_size, width], rates["recurrent_dropout"], dtype)
        if active and rates["output_dropout"]:
            ctx.output_mask = _mask(rng, [batch_size, self.n_units], rates["output_dropout"], dtype)
        for attr, option in self.dropconnect_weights:
            weight = getattr(self.state, attr)
            rate = rates[option]
            if active and rate:
                weight = weight * _mask(rng, tf.shape(weight), rate, weight.dtype)
            ctx.weights[attr] = weight
        return ctx

    def step(
        self, x: tf.Tensor, *states: tf.Tensor, context: StepContext | None = None
    ) -> tuple[tf.Tensor, list[tf.Tensor]]:
        """One step on tensors: ``(output, [new_states])``."""
        ctx = context if context is not None else self.begin(tf.shape(x)[0], x.dtype)
        if ctx.input_mask is not None and not ctx.projected:
            x = x * ctx.input_mask
        recurrent = states[0] if ctx.state_mask is None else states[0] * ctx.state_mask
        if ctx.projected:  # a cell that projects inputs takes ``projected`` (see below)
            transition: Any = self.transition
            out, new_states = transition(x, list(states), recurrent, ctx.weights, True)
        else:
            out, new_states = self.transition(x, list(states), recurrent, ctx.weights)
        if ctx.output_mask is not None:
            out = out * ctx.output_mask
        return out, new_states

    def project_inputs(self, xs: tf.Tensor, context: StepContext) -> tf.Tensor | None:
        """Optionally precompute the input side of every step, ``(T, B, in) -> (T, B, k)``;
        a cell that does sets ``context.projected`` and its ``transition`` receives those
        rows (with ``projected=True``). The default does not (``None``)."""
        return None

    def transition(
        self, x: tf.Tensor, states: list[tf.Tensor], recurrent: tf.Tensor, weights: dict[str, Any]
    ) -> tuple[tf.Tensor, list[tf.Tensor]]:
        """The cell maths: ``recurrent`` is ``states[0]`` after state dropout."""
        raise NotImplementedError(f"{type(self).__name__} must implement transition().")

    def compute(self, x: tf.Tensor, *states: tf.Tensor) -> tf.Tensor:
        """The new hidden output for one step (zeros for omitted states)."""
        if not states:
            states = tuple(self.zero_state(tf.shape(x)[0], x.dtype))
        out, _ = self.step(x, *states)
        return out


def _mask(rng: Any, shape: Any, rate: float, dtype: tf.DType) -> tf.Tensor:
    """Inverted-dropout mask: 0, or ``1 / (1 - rate)`` with chance ``1 - rate``."""
    return tf.cast(rng.uniform(shape) >= rate, dtype) / tf.constant(1.0 - rate, dtype)


def _check_states(label: str, states: tuple[Any, ...], sizes: list[int]) -> None:
    if not states:
        return
    if len(states) != len(sizes):
        got = [getattr(s, "shape", type(s).__name__) for s in states]
        raise tw.ShapeError(
            f"{label}: got {len(states)} previous state(s) {got}, but state_size is {sizes}. "
            f"Fix: pass one layer per state, shapes {[(None, w) for w in sizes]}, or none "
            "to start from zeros."
        )
    for i, (s, w) in enumerate(zip(states, sizes, strict=True)):
        if not isinstance(s, tw.Layer):
            raise TypeError(f"{label}: previous state {i} is a {type(s).__name__}, not a Layer.")
        if len(s.shape) != 2 or s.shape[-1] != w:
            raise tw.ShapeError(
                f"{label}: previous state {i} ({s.name!r}) has shape {s.shape}, but "
                f"state_size[{i}] is {w}: expected (None, {w}). state_size={sizes}."
            )
