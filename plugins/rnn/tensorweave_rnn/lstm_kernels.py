"""LSTM steps with hand-written gradients (sigmoid gates, tanh), Keras gate order i, f, c, o.

Autodiff of the LSTM step works, but under ``tw.compile`` the batch size is dynamic, so
every element-wise op's gradient adds shape and broadcasting bookkeeping, and the loop
saves many intermediates. These functions return the same values and gradients (tested
against autodiff) with fewer ops. ``lstm_step`` takes the input ``x``;
``lstm_step_projected`` takes ``x @ kernel + bias`` computed beforehand for all steps at
once (``RNN`` does that in one large matmul outside its loop).

>>> import numpy as np, tensorflow as tf
>>> args = [tf.random.normal(s) for s in ([2, 3], [2, 4], [2, 4], [3, 16], [4, 16], [16])]
>>> with tf.GradientTape() as tape:
...     tape.watch(args)
...     h, c = lstm_step(*args)
...     loss = tf.reduce_sum(h * c)
>>> [g.shape.as_list() for g in tape.gradient(loss, args)][-1]
[16]
>>> zx = tf.nn.bias_add(args[0] @ args[3], args[5])
>>> bool(np.allclose(lstm_step_projected(zx, args[1], args[2], args[4])[0], h))
True
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

__all__ = ["lstm_step", "lstm_step_projected"]


def _forward(z: tf.Tensor, c: tf.Tensor) -> tuple[tf.Tensor, ...]:
    i, f, g, o = tf.split(z, 4, axis=1)
    si, sf, so, tg = tf.sigmoid(i), tf.sigmoid(f), tf.sigmoid(o), tf.tanh(g)
    c_new = sf * c + si * tg
    tc = tf.tanh(c_new)
    return so * tc, c_new, si, sf, so, tg, tc


def _backward(dh: Any, dc: Any, saved: tuple[tf.Tensor, ...]) -> tuple[tf.Tensor, tf.Tensor]:
    """``(dz, dc_prev)`` from the upstream gradients of ``h`` and ``c``."""
    h_new, c_new, si, sf, so, tg, tc, c = saved
    dh = tf.zeros_like(h_new) if dh is None else dh
    dc = tf.zeros_like(c_new) if dc is None else dc
    dc = dc + dh * so * (1.0 - tc * tc)
    dz = tf.concat(
        [
            dc * tg * si * (1.0 - si),
            dc * c * sf * (1.0 - sf),
            dc * si * (1.0 - tg * tg),
            dh * tc * so * (1.0 - so),
        ],
        axis=1,
    )
    return dz, dc * sf


@tf.custom_gradient
def lstm_step(x, h, c, kernel, recurrent, bias):  # type: ignore[no-untyped-def]
    """One LSTM step: ``(h, c)`` from ``x``, the previous ``h``, ``c`` and the weights."""
    z = tf.nn.bias_add(tf.matmul(x, kernel) + tf.matmul(h, recurrent), bias)
    out = _forward(z, c)

    def grad(dh, dc):  # type: ignore[no-untyped-def]
        dz, dc_prev = _backward(dh, dc, (*out, c))
        return (
            tf.matmul(dz, kernel, transpose_b=True),
            tf.matmul(dz, recurrent, transpose_b=True),
            dc_prev,
            tf.matmul(x, dz, transpose_a=True),
            tf.matmul(h, dz, transpose_a=True),
            tf.reduce_sum(dz, axis=0),
        )

    return (out[0], out[1]), grad


@tf.custom_gradient
def lstm_step_projected(zx, h, c, recurrent):  # type: ignore[no-untyped-def]
    """One LSTM step from the projected input ``zx = x @ kernel + bias``: ``(h, c)``."""
    out = _forward(zx + tf.matmul(h, recurrent), c)

    def grad(dh, dc):  # type: ignore[no-untyped-def]
        dz, dc_prev = _backward(dh, dc, (*out, c))
        return (
            dz,
            tf.matmul(dz, recurrent, transpose_b=True),
            dc_prev,
            tf.matmul(h, dz, transpose_a=True),
        )

    return (out[0], out[1]), grad
