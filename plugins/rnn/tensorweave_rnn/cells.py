"""The standard cells: ``RNNCell``, ``GRUCell`` and ``LSTMCell`` (Keras 3 weight layouts).

Each keeps ``kernel`` ``(in, k*n)``, ``recurrent_kernel`` ``(n, k*n)`` and ``bias`` with
the gates fused, so one matmul per weight computes every gate, in the Keras order
(LSTM ``i, f, c, o``; GRU ``z, r, h``): copying weights to or from
``keras.layers.LSTMCell`` / ``GRUCell`` gives the same numbers. Initial values: glorot
uniform (input weights), orthogonal (recurrent weights), zero bias with the LSTM forget
gate's bias at 1. Options common to the three: ``activation`` (``"tanh"``), ``use_bias``,
``hoist_inputs`` (let ``RNN`` compute ``x @ kernel + bias`` for all steps in one matmul
before its loop; same values) and the ``Cell`` dropout options.

>>> x = tw.Input(n_units=3)
>>> lstm = LSTMCell(x, n_units=5)
>>> lstm.state_size, [tuple(v.shape) for v in (lstm.kernel, lstm.recurrent_kernel, lstm.bias)]
([5, 5], [(3, 20), (5, 20), (20,)])
>>> GRUCell(x, n_units=2).bias.shape.as_list(), GRUCell(x, n_units=2, reset_after=False).bias.shape.as_list()
([2, 6], [6])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_rnn.cell import Cell, StepContext
from tensorweave_rnn.init import glorot_uniform, orthogonal
from tensorweave_rnn.lstm_kernels import lstm_step, lstm_step_projected

__all__ = ["RNNCell", "GRUCell", "LSTMCell", "resolve_activation"]


def resolve_activation(activation: str | Callable[..., Any], owner: str) -> Callable[..., Any]:
    """A callable from a function, a registered activation name or a ``tf.math``/``tf.nn``
    function name (``"tanh"``)."""
    if callable(activation):
        return activation
    if activation in tw.activations:
        fn: Callable[..., Any] = tw.activations[activation]
        return fn
    for module in (tf.math, tf.nn):
        fn = getattr(module, str(activation), None)
        if callable(fn):
            return fn
    raise ValueError(
        f"{owner}: unknown activation {activation!r}. Fix: pass a callable, a registered "
        "activation name, or a tf.math / tf.nn function name such as 'tanh'."
    )


class _Fused(Cell):
    """A cell with fused-gate ``kernel``, ``recurrent_kernel`` and ``bias``."""

    gates = 1

    def __init__(
        self,
        x: tw.Layer,
        *previous_state: tw.Layer,
        n_units: int,
        activation: str | Callable[..., Any] = "tanh",
        use_bias: bool = True,
        hoist_inputs: bool = True,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
        **options: Any,
    ) -> None:
        object.__setattr__(self, "_activation", resolve_activation(activation, type(self).__name__))
        object.__setattr__(self, "_use_bias", bool(use_bias))
        object.__setattr__(self, "_hoist", bool(hoist_inputs))
        super().__init__(
            x,
            *previous_state,
            n_units=n_units,
            name=name,
            share_state_with=share_state_with,
            **options,
        )

    def bias_value(self, n: int) -> tf.Tensor:
        """The initial bias (zeros)."""
        return tf.zeros([self.gates * n], self.dtype)

    def init_state(self) -> None:
        n, k = self.n_units, self.gates
        self.state.kernel = tf.Variable(
            glorot_uniform([self.input_size, k * n], self.dtype), name="kernel"
        )
        self.state.recurrent_kernel = tf.Variable(
            orthogonal([n, k * n], dtype=self.dtype), name="recurrent_kernel"
        )
        if self._use_bias:
            self.state.bias = tf.Variable(self.bias_value(n), name="bias")

    def _bias(self) -> Any:
        return self.state.bias if self._use_bias else None

    def _input_bias(self) -> Any:
        """The bias added to the input projection (all of it, unless a subclass splits it)."""
        return self._bias()

    def project_inputs(self, xs: tf.Tensor, context: StepContext) -> tf.Tensor | None:
        """``x @ kernel (+ bias)`` for every step at once, ``(T, B, in) -> (T, B, k*n)``.

        One large matmul outside the loop instead of one small one per step (same values).
        Input dropout is applied here (its mask is the same for every step) and
        ``context.projected`` is set so ``step`` expects projected inputs. Returns ``None``
        when ``hoist_inputs=False``.
        """
        if not self._hoist:
            return None
        if context.input_mask is not None:
            xs = xs * context.input_mask
        dims = tf.shape(xs)
        flat = tf.matmul(tf.reshape(xs, [-1, self.input_size]), context.weights["kernel"])
        bias = self._input_bias()
        if bias is not None:
            flat = tf.nn.bias_add(flat, bias)
        context.projected = True
        return tf.reshape(flat, [dims[0], dims[1], self.gates * self.n_units])


class RNNCell(_Fused):
    """Elman cell: ``h = activation(x @ kernel + h @ recurrent_kernel + bias)``."""

    def transition(self, x, states, recurrent, weights, projected=False):  # type: ignore[no-untyped-def]
        rec = tf.matmul(recurrent, weights["recurrent_kernel"])
        if projected:
            z = x + rec
        else:
            z = tf.matmul(x, weights["kernel"]) + rec
            bias = self._bias()
            if bias is not None:
                z = tf.nn.bias_add(z, bias)
        h = self._activation(z)
        return h, [h]


class LSTMCell(_Fused):
    """Long short-term memory cell; states ``[h, c]``, output ``h`` (Keras gate order
    ``i, f, c, o``; ``recurrent_activation`` is the gates' activation, sigmoid).

    With the default activations, ``fused_gradient=True`` computes the step's gradient in
    one hand-written backward function (``lstm_step``): the same numbers as autodiff,
    fewer ops, and no broadcasting bookkeeping when the batch size is dynamic (as under
    ``tw.compile``).
    """

    gates = 4

    def __init__(
        self,
        x: tw.Layer,
        *previous_state: tw.Layer,
        n_units: int,
        recurrent_activation: str | Callable[..., Any] = "sigmoid",
        unit_forget_bias: bool = True,
        fused_gradient: bool = True,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
        **options: Any,
    ) -> None:
        object.__setattr__(
            self, "_gate_fn", resolve_activation(recurrent_activation, type(self).__name__)
        )
        object.__setattr__(self, "_forget_one", bool(unit_forget_bias))
        object.__setattr__(self, "_fused_gradient", bool(fused_gradient))
        super().__init__(
            x,
            *previous_state,
            n_units=n_units,
            name=name,
            share_state_with=share_state_with,
            **options,
        )

    def state_size_for(self, n_units: int) -> list[int]:
        return [n_units, n_units]

    def bias_value(self, n: int) -> tf.Tensor:
        """Zeros, with the forget gate's bias at 1 (``unit_forget_bias``)."""
        forget = tf.ones([n], self.dtype) if self._forget_one else tf.zeros([n], self.dtype)
        zeros = tf.zeros([n], self.dtype)
        return tf.concat([zeros, forget, zeros, zeros], axis=0)

    def transition(self, x, states, recurrent, weights, projected=False):  # type: ignore[no-untyped-def]
        c = states[1]
        bias = self._bias()
        rec = weights["recurrent_kernel"]
        fused = self._fused_gradient and self._gate_fn is tf.math.sigmoid
        fused = fused and self._activation is tf.math.tanh
        if fused and projected:
            h, c = lstm_step_projected(x, recurrent, c, rec)
            return h, [h, c]
        if fused and bias is not None:
            h, c = lstm_step(x, recurrent, c, weights["kernel"], rec, bias)
            return h, [h, c]
        if projected:
            z = x + tf.matmul(recurrent, rec)
        else:
            z = tf.matmul(x, weights["kernel"]) + tf.matmul(recurrent, rec)
            if bias is not None:
                z = tf.nn.bias_add(z, bias)
        i, f, g, o = tf.split(z, 4, axis=1)
        gate = self._gate_fn
        c = gate(f) * c + gate(i) * self._activation(g)
        h = gate(o) * self._activation(c)
        return h, [h, c]


class GRUCell(_Fused):
    """Gated recurrent unit; gates ``z, r, h`` as in Keras.

    ``reset_after=True`` (Keras' default, cuDNN-compatible) applies the reset gate after the
    recurrent matmul and keeps two biases ``(2, 3n)``; ``False`` applies it before (the
    original GRU) with one bias ``(3n,)``.
    """

    gates = 3

    def __init__(
        self,
        x: tw.Layer,
        *previous_state: tw.Layer,
        n_units: int,
        recurrent_activation: str | Callable[..., Any] = "sigmoid",
        reset_after: bool = True,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
        **options: Any,
    ) -> None:
        object.__setattr__(
            self, "_gate_fn", resolve_activation(recurrent_activation, type(self).__name__)
        )
        object.__setattr__(self, "_reset_after", bool(reset_after))
        super().__init__(
            x,
            *previous_state,
            n_units=n_units,
            name=name,
            share_state_with=share_state_with,
            **options,
        )

    def bias_value(self, n: int) -> tf.Tensor:
        """Zeros: ``(2, 3n)`` with ``reset_after``, else ``(3n,)``."""
        shape = [2, 3 * n] if self._reset_after else [3 * n]
        return tf.zeros(shape, self.dtype)

    def _input_bias(self) -> Any:
        bias = self._bias()
        return bias[0] if bias is not None and self._reset_after else bias

    def transition(self, x, states, recurrent, weights, projected=False):  # type: ignore[no-untyped-def]
        h_prev = states[0]
        n = self.n_units
        kernel, rec = weights["kernel"], weights["recurrent_kernel"]
        bias = self._bias()
        gate = self._gate_fn
        if self._reset_after:
            mx = x if projected else tf.matmul(x, kernel)
            mh = tf.matmul(recurrent, rec)
            if bias is not None:
                mh = tf.nn.bias_add(mh, bias[1])
                if not projected:
                    mx = tf.nn.bias_add(mx, bias[0])
            xz, xr, xh = tf.split(mx, 3, axis=1)
            hz, hr, hh = tf.split(mh, 3, axis=1)
            z = gate(xz + hz)
            r = gate(xr + hr)
            candidate = self._activation(xh + r * hh)
        else:
            mx = x if projected else tf.matmul(x, kernel)
            if bias is not None and not projected:
                mx = tf.nn.bias_add(mx, bias)
            xz, xr, xh = tf.split(mx, 3, axis=1)
            hzr = tf.matmul(recurrent, rec[:, : 2 * n])
            hz, hr = tf.split(hzr, 2, axis=1)
            z = gate(xz + hz)
            r = gate(xr + hr)
            candidate = self._activation(xh + tf.matmul(r * recurrent, rec[:, 2 * n :]))
        h = z * h_prev + (1.0 - z) * candidate
        return h, [h]
