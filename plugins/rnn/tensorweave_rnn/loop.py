"""The time loop of ``RNN``: a cell's ``step`` run over every step of a sequence.

``RNN`` (``rnn.py``) deals with its options, its state and its place in the graph; this
module only runs steps on tensors, time-major ``(time, batch, ...)``. There are two ways,
with the same numbers and gradients:

- ``TimeLoop.unrolled``: a Python loop, for a time axis known when tracing and at most
  ``UNROLL_MAX`` steps long: no loop bookkeeping, and the ops of neighbouring steps can
  overlap;
- ``TimeLoop.looped``: one ``tf.while_loop`` over a ``TensorArray``, for any length, traced
  once.

``TimeLoop.run`` picks one. A ``TimeLoop`` holds what every step of one run shares (the
cell, its step function and keyword arguments, the name errors give, the direction and
whether every output is kept). Both ways honour a padding mask (``time_mask``: at padded
steps the states carry through unchanged and the outputs are zero), ``reverse`` (outputs
stay aligned with the input steps) and ``sequences=False`` (the output of the last real
step).

>>> import numpy as np, tensorflow as tf, tensorweave as tw
>>> cell = tw.cells["RNNCell.v1"](tw.Input(n_units=3), n_units=4)
>>> xs, h0 = tf.ones([5, 2, 3]), [tf.zeros([2, 4])]  # 5 steps, 2 rows
>>> mask = time_mask(tf.constant([5, 2]), "lengths", 5, time_major=False)
>>> loop = TimeLoop(cell, cell.step, {}, "demo")
>>> a, _ = loop.unrolled(xs, mask, h0, 5)
>>> b, _ = loop.looped(xs, mask, h0, 5, 2)
>>> a.shape.as_list(), bool(np.allclose(a, b)), bool(np.all(a[2:, 1] == 0))
([5, 2, 4], True, True)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import tensorflow as tf

from tensorweave_rnn.contract import check_step

__all__ = ["UNROLL_MAX", "TimeLoop", "time_mask"]

UNROLL_MAX = 32  # a time axis known when tracing and at most this long is unrolled

Step = Callable[..., Any]
Result = tuple[tf.Tensor, Sequence[tf.Tensor]]  # (outputs, final states)


@dataclass(frozen=True)
class TimeLoop:
    """What every step of one run shares: ``step(x, *states, **kwargs) -> (out, states)``
    of ``cell``, the name errors give (``who``), the direction and whether every step's
    output is kept (``sequences``) or only the last real one."""

    cell: Any
    step: Step
    kwargs: dict[str, Any]
    who: str
    reverse: bool = False
    sequences: bool = True

    def run(
        self,
        xs: tf.Tensor,
        mask: tf.Tensor | None,
        states: list[tf.Tensor],
        steps: tf.Tensor,
        batch: tf.Tensor,
    ) -> Result:
        """``unrolled`` when the length of ``xs`` is known when tracing and at most
        ``UNROLL_MAX``, ``looped`` otherwise."""
        static = xs.shape[0]
        if isinstance(static, int) and 0 < static <= UNROLL_MAX:
            return self.unrolled(xs, mask, states, static)
        return self.looped(xs, mask, states, steps, batch)

    def looped(
        self,
        xs: tf.Tensor,
        mask: tf.Tensor | None,
        states: list[tf.Tensor],
        steps: tf.Tensor,
        batch: tf.Tensor,
    ) -> Result:
        """The time loop as one ``tf.while_loop`` (any length, traced once)."""
        cell, step, kwargs = self.cell, self.step, self.kwargs
        reverse, sequences = self.reverse, self.sequences
        dtype = xs.dtype
        inputs = tf.TensorArray(xs.dtype, size=steps).unstack(xs)
        masks = tf.TensorArray(tf.bool, size=steps).unstack(mask) if mask is not None else None
        width = cell.shape[-1]
        checked: list[bool] = []

        def body(t: tf.Tensor, states: tuple[tf.Tensor, ...], *extra: Any) -> tuple[Any, ...]:
            i = steps - 1 - t if reverse else t
            out, new = step(inputs.read(i), *states, **kwargs)
            if not checked:
                check_step(cell, out, new, self.who)
                checked.append(True)
            new = list(new)
            extra_out: list[Any] = []
            if masks is not None:
                m = masks.read(i)
                new = [tf.where(m, n, s) for n, s in zip(new, states, strict=True)]
                out = tf.where(m, out, tf.zeros_like(out))
            if not sequences:
                extra_out.append(out if masks is None else tf.where(m, out, extra[0]))
            else:
                extra_out.append(extra[0].write(i, out))
            return (t + 1, tuple(new), *extra_out)

        extra0 = (
            tf.TensorArray(dtype, size=steps, element_shape=tf.TensorShape([None, width]))
            if sequences
            else tf.zeros([batch, width], dtype)
        )
        _, final, result = tf.while_loop(
            lambda t, *_: t < steps,
            body,
            (tf.constant(0), tuple(states), extra0),
        )
        return (result.stack() if sequences else result), final

    def unrolled(
        self, xs: tf.Tensor, mask: tf.Tensor | None, states: list[tf.Tensor], steps: int
    ) -> Result:
        """The time loop unrolled in Python, for a length known when tracing (at most
        ``UNROLL_MAX``): no loop bookkeeping, and the ops of neighbouring steps can
        overlap; the numbers are the same as ``looped``'s."""
        inputs = tf.unstack(xs, num=steps)
        masks = tf.unstack(mask, num=steps) if mask is not None else None
        outs: list[Any] = [None] * steps
        last = None
        carried = tuple(states)
        for t in range(steps):
            i = steps - 1 - t if self.reverse else t
            out, new = self.step(inputs[i], *carried, **self.kwargs)
            if t == 0:
                check_step(self.cell, out, new, self.who)
            new = list(new)
            if masks is not None:
                m = masks[i]
                new = [tf.where(m, n, s) for n, s in zip(new, carried, strict=True)]
                out = tf.where(m, out, tf.zeros_like(out))
                if not self.sequences:
                    out = out if last is None else tf.where(m, out, last)
            carried = tuple(new)
            outs[i] = out
            last = out
        result = tf.stack(outs) if self.sequences else last
        return result, carried


def time_mask(
    aux: tf.Tensor | None, kind: str | None, steps: Any, *, time_major: bool
) -> tf.Tensor | None:
    """A ``(time, batch, 1)`` boolean mask from ``lengths`` (``kind="lengths"``, one length
    per row) or a ``mask`` (``kind="mask"``, in the sequence's layout), or ``None``."""
    if aux is None or kind is None:
        return None
    if kind == "lengths":
        m = tf.sequence_mask(aux, maxlen=steps)
        m = tf.transpose(m)
    else:
        m = tf.cast(aux, tf.bool)
        if not time_major:
            m = tf.transpose(m)
    return m[:, :, None]
