"""The standard cells: ``RNNCell``, ``GRUCell`` and ``LSTMCell`` (Keras 3 weight layouts).

Each keeps ``kernel`` ``(in, k*n)``, ``recurrent_kernel`` ``(n, k*n)`` and ``bias`` with
the gates fused, so one matmul per weight computes every gate, in the Keras order
(LSTM ``i, f, c, o``; GRU ``z, r, h``): copying weights to or from
``keras.layers.LSTMCell`` / ``GRUCell`` gives the same numbers. Initial values: glorot
uniform (input weights), orthogonal (recurrent weights), zero bias with the LSTM forget
gate's bias at 1. Options common to the three: ``activation`` (a registered
``tw.activations`` name or a callable, resolved by ``tw.resolve``; default
tensorweave-layers' ``"tanh"``), ``add_bias``,
``w_init`` / ``u_init`` / ``b_init`` (initializers of the input weights ``kernel``, the
recurrent weights ``recurrent_kernel`` and the bias: a registered ``tw.initializers`` name
or a function ``(shape, dtype) -> tensor``; ``None`` keeps the defaults above, the
registered ``"tensorweave-layers:glorot_uniform"`` and ``"tensorweave-layers:orthogonal"``),
``hoist_inputs`` (let ``RNN`` compute ``x @ kernel + bias`` for all steps in one matmul
before its loop; same values) and the ``Cell`` dropout options.

>>> import tensorweave as tw
>>> x = tw.Input(n_units=3)
>>> lstm = LSTMCell(x, n_units=5)
>>> lstm.state_size, [tuple(v.shape) for v in (lstm.kernel, lstm.recurrent_kernel, lstm.bias)]
([5, 5], [(3, 20), (5, 20), (20,)])
>>> GRUCell(x, n_units=2).bias.shape.as_list(), GRUCell(x, n_units=2, reset_after=False).bias.shape.as_list()
([2, 6], [6])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

import tensorflow as tf

import tensorweave as tw
from tensorweave_rnn.cell import Cell, StepContext
from tensorweave_rnn.lstm_kernels import lstm_step, lstm_step_projected

__all__ = ["RNNCell", "GRUCell", "LSTMCell", "InitializerLike"]

InitializerLike: TypeAlias = "str | Callable[..., Any] | None"

#: the initializers ``w_init=None`` / ``u_init=None`` stand for (tensorweave-layers' own)
W_INIT = "tensorweave-layers:glorot_uniform"
U_INIT = "tensorweave-layers:orthogonal"


class _Fused(Cell):
    """A cell with fused-gate ``kernel``, ``recurrent_kernel`` and ``bias``."""

    gates = 1

    def __init__(
        self,
        x: tw.Layer,
        *previous_state: tw.Layer,
        n_units: int,
        activation: str | Callable[..., Any] = "tensorweave-layers:tanh",
        add_bias: bool = True,
        w_init: InitializerLike = None,
        u_init: InitializerLike = None,
        b_init: InitializerLike = None,
        hoist_inputs: bool = True,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
        **options: Any,
    ) -> None:
        owner = f"{type(self).__name__}{f' {name!r}' if name else ''}"
        self._activation = tw.resolve("activations", activation, owner=owner, option="activation")
        self._add_bias = bool(add_bias)
        inits = {
            "w_init": tw.resolve(
                "initializers", w_init, default=W_INIT, owner=owner, option="w_init"
            ),
            "u_init": tw.resolve(
                "initializers", u_init, default=U_INIT, owner=owner, option="u_init"
            ),
            "b_init": tw.resolve("initializers", b_init, owner=owner, option="b_init"),
        }
        self._inits = inits
        self._hoist = bool(hoist_inputs)
        super().__init__(
            x,
            *previous_state,
            n_units=n_units,
            name=name,
            share_state_with=share_state_with,
            **options,
        )

    def initial(self, option: str, shape: list[int]) -> tf.Tensor | None:
        """The value ``w_init``/``u_init``/``b_init`` gives for ``shape`` (``None``: not set)."""
        fn = self._inits[option]
        if fn is None:
            return None
        value = tf.convert_to_tensor(fn(tuple(shape), self.dtype), dtype=self.dtype)
        if value.shape.as_list() != list(shape):
            raise tw.ShapeError(
                f"{type(self).__name__} {self.name!r}: {option} made shape "
                f"{value.shape.as_list()}, needed {list(shape)}. Fix: pass an initializer "
                "that returns a tensor of the shape it is given."
            )
        return value

    def bias_value(self, n: int) -> tf.Tensor:
        """The initial bias: ``b_init`` or zeros."""
        value = self.initial("b_init", [self.gates * n])
        return tf.zeros([self.gates * n], self.dtype) if value is None else value

    def init_state(self) -> None:
        n, k = self.n_units, self.gates
        w = self.initial("w_init", [self.input_size, k * n])
        u = self.initial("u_init", [n, k * n])
        self.state.kernel = tf.Variable(w, name="kernel")
        self.state.recurrent_kernel = tf.Variable(u, name="recurrent_kernel")
        if self._add_bias:
            self.state.bias = tf.Variable(self.bias_value(n), name="bias")

    def _bias(self) -> Any:
        return self.state.bias if self._add_bias else None

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
        recurrent_activation: str | Callable[..., Any] = "tensorweave-layers:sigmoid",
        unit_forget_bias: bool = True,
        fused_gradient: bool = True,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
        **options: Any,
    ) -> None:
        self._gate_fn = tw.resolve(
            "activations",
            recurrent_activation,
            owner=f"{type(self).__name__}{f' {name!r}' if name else ''}",
            option="recurrent_activation",
        )
        self._forget_one = bool(unit_forget_bias)
        self._fused_gradient = bool(fused_gradient)
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
        """``b_init`` (default zeros), with the forget gate's bias at 1 when
        ``unit_forget_bias`` (as Keras: ``b_init`` then fills the ``i`` and ``c, o`` parts)."""
        if not self._forget_one:
            return super().bias_value(n)
        i = self.initial("b_init", [n])
        co = self.initial("b_init", [2 * n])
        i = tf.zeros([n], self.dtype) if i is None else i
        co = tf.zeros([2 * n], self.dtype) if co is None else co
        return tf.concat([i, tf.ones([n], self.dtype), co], axis=0)

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
        recurrent_activation: str | Callable[..., Any] = "tensorweave-layers:sigmoid",
        reset_after: bool = True,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
        **options: Any,
    ) -> None:
        self._gate_fn = tw.resolve(
            "activations",
            recurrent_activation,
            owner=f"{type(self).__name__}{f' {name!r}' if name else ''}",
            option="recurrent_activation",
        )
        self._reset_after = bool(reset_after)
        super().__init__(
            x,
            *previous_state,
            n_units=n_units,
            name=name,
            share_state_with=share_state_with,
            **options,
        )

    def bias_value(self, n: int) -> tf.Tensor:
        """``b_init`` (default zeros): ``(2, 3n)`` with ``reset_after``, else ``(3n,)``."""
        shape = [2, 3 * n] if self._reset_after else [3 * n]
        value = self.initial("b_init", shape)
        return tf.zeros(shape, self.dtype) if value is None else value

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
