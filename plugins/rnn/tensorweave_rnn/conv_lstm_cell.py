"""``ConvLSTM2DCell``: one step of a convolutional LSTM (Shi et al. 2015; Keras's
``ConvLSTM2D`` cell), on images flattened to vectors so the pack's ``RNN`` runs it.

The step input is an image ``[batch, H, W, C]`` and the states ``h``, ``c`` are feature
maps ``[batch, h, w, n_units]``; every gate is a convolution of the input (``kernel``
``[kh, kw, C, 4 n_units]``, with ``strides``, ``padding`` and ``dilation_rate``) plus a
``same``-padded convolution of ``h`` (``recurrent_kernel`` ``[kh, kw, n_units, 4
n_units]``), in Keras's gate order ``i, f, c, o``, so weights carry over from and to
``keras.layers.ConvLSTM2D``. A cell's contract is vectors ``(batch, width)``, so the cell
takes and returns the maps flattened (``width = H * W * C`` in, ``h * w * n_units`` out)
and reshapes inside; ``ConvLSTM2D`` does the flattening around an ``RNN``, which brings
masks, ``reverse``, dropout (``Cell``'s options, on every pixel) and the loops. ``RNN``
hoists the input convolution of every step into one convolution before its loop.

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(n_units=4 * 4 * 2)                      # a flattened 4x4x2 image
>>> cell = ConvLSTM2DCell(x, image=(4, 4, 2), filters=3, kernel_size=3, padding="same")
>>> cell.state_size, cell.kernel.shape.as_list(), cell.map_shape
([48, 48], [3, 3, 2, 12], (4, 4, 3))
>>> out, (h, c) = cell.step(tf.ones([2, 32]), tf.zeros([2, 48]), tf.zeros([2, 48]))
>>> out.shape.as_list()
[2, 48]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_rnn.cell import Cell, StepContext

__all__ = ["ConvLSTM2DCell", "conv_output_size"]

Initializer = str | Callable[..., Any] | None


def conv_output_size(size: int, kernel: int, stride: int, dilation: int, padding: str) -> int:
    """The length of one spatial axis after a convolution (``"same"``/``"valid"``).

    >>> conv_output_size(7, 3, 2, 1, "valid"), conv_output_size(7, 3, 2, 1, "same")
    (3, 4)
    """
    if padding == "same":
        return -(-size // stride)
    return -(-(size - (kernel - 1) * dilation) // stride)


def _pair(value: int | Sequence[int], what: str, who: str) -> tuple[int, int]:
    out = (value, value) if isinstance(value, int) else tuple(value)
    if len(out) != 2 or not all(
        isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in out
    ):
        raise tw.ArgumentError(f"{who}: {what} must be a positive int or two, got {value!r}.")
    return out[0], out[1]


class ConvLSTM2DCell(Cell):
    """A convolutional LSTM step on flattened images (see the module docstring).

    Args:
        x: the flattened step input ``(None, H * W * C)``.
        *previous_state: ``h`` and ``c``, flattened (or none: zeros).
        image: the step image's ``(H, W, C)``.
        filters: the feature maps of the states (``ConvLSTM2D``'s ``n_units``).
        n_units: the flattened output width ``h * w * filters`` (computed when omitted).
        kernel_size, strides, padding, dilation_rate: of the input convolution.
        activation, recurrent_activation, add_bias, unit_forget_bias: as ``LSTMCell``.
        w_init, u_init, b_init: initializers of ``kernel``, ``recurrent_kernel`` and
            ``bias`` (defaults glorot-uniform, orthogonal, zeros, as Keras).
        **options: ``Cell``'s dropout options and ``training``.
    """

    def __init__(
        self,
        x: tw.Layer,
        *previous_state: tw.Layer,
        image: Sequence[int],
        filters: int,
        n_units: int | None = None,
        kernel_size: int | Sequence[int] = 3,
        strides: int | Sequence[int] = 1,
        padding: str = "valid",
        dilation_rate: int | Sequence[int] = 1,
        activation: str | Callable[..., Any] = "tensorweave-layers:tanh",
        recurrent_activation: str | Callable[..., Any] = "tensorweave-layers:sigmoid",
        add_bias: bool = True,
        unit_forget_bias: bool = True,
        w_init: Initializer = "tensorweave-layers:glorot_uniform",
        u_init: Initializer = "tensorweave-layers:orthogonal",
        b_init: Initializer = "tensorweave-layers:zeros",
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
        **options: Any,
    ) -> None:
        who = f"ConvLSTM2DCell{f' {name!r}' if name else ''}"
        height, width, channels = (tw.positive_int(d, "image", who) for d in image)
        self.filters = tw.positive_int(filters, "filters", who)
        self.kernel_size = _pair(kernel_size, "kernel_size", who)
        self.strides = _pair(strides, "strides", who)
        self.dilations = _pair(dilation_rate, "dilation_rate", who)
        if max(self.strides) > 1 and max(self.dilations) > 1:
            raise tw.ArgumentError(f"{who}: strides > 1 and dilation_rate > 1 cannot be combined.")
        if padding not in ("same", "valid"):
            raise tw.ArgumentError(f"{who}: padding must be 'same' or 'valid', got {padding!r}.")
        self.padding = padding
        self.image = (height, width, channels)
        size = [
            conv_output_size(n, k, s, d, padding)
            for n, k, s, d in zip(
                (height, width), self.kernel_size, self.strides, self.dilations, strict=True
            )
        ]
        if min(size) < 1:
            raise tw.ShapeError(
                f"{who}: a {height}x{width} image is smaller than the kernel {self.kernel_size} "
                "with padding='valid'. Fix: padding='same' or a smaller kernel_size."
            )
        self.map_shape = (size[0], size[1], self.filters)
        flat = size[0] * size[1] * self.filters
        if n_units is not None and n_units != flat:
            raise tw.ShapeError(f"{who}: n_units={n_units}, but the maps hold {flat} units.")
        if x.shape[-1] != height * width * channels:
            raise tw.ShapeError(
                f"{who}: the step input {x.name!r} has width {x.shape[-1]}, not "
                f"{height}*{width}*{channels} (image={self.image})."
            )
        self._gate = tw.resolve(
            "activations", recurrent_activation, owner=who, option="recurrent_activation"
        )
        self._activation = tw.resolve("activations", activation, owner=who, option="activation")
        self._add_bias = bool(add_bias)
        self._forget_one = bool(unit_forget_bias)
        self._inits = {
            key: tw.resolve("initializers", value, owner=who, option=key)
            for key, value in (("w_init", w_init), ("u_init", u_init), ("b_init", b_init))
        }
        super().__init__(
            x,
            *previous_state,
            n_units=flat,
            name=name,
            share_state_with=share_state_with,
            **options,
        )

    def state_size_for(self, n_units: int) -> list[int]:
        return [n_units, n_units]

    def init_state(self) -> None:
        """``kernel``, ``recurrent_kernel`` and ``bias`` (forget gate at 1), Keras's shapes."""
        (kh, kw), f, channels = self.kernel_size, self.filters, self.image[2]
        shapes = {
            "kernel": ("w_init", (kh, kw, channels, 4 * f)),
            "recurrent_kernel": ("u_init", (kh, kw, f, 4 * f)),
        }
        for attr, (option, shape) in shapes.items():
            value = self._inits[option](shape, self.dtype)
            setattr(self.state, attr, tf.Variable(value, name=attr))
        if self._add_bias:
            bias = self._inits["b_init"]((4 * f,), self.dtype)
            if self._forget_one:
                bias = tf.concat([bias[:f], tf.ones([f], self.dtype), bias[2 * f :]], axis=0)
            self.state.bias = tf.Variable(bias, name="bias")

    def _input_conv(self, images: tf.Tensor, kernel: Any) -> tf.Tensor:
        out = tf.nn.conv2d(
            images,
            kernel,
            strides=self.strides,
            padding=self.padding.upper(),
            dilations=self.dilations,
        )
        return out + self.state.bias if self._add_bias else out

    def project_inputs(self, xs: tf.Tensor, context: StepContext) -> tf.Tensor:
        """The input convolution of every step at once, ``(T, B, H*W*C) -> (T, B, h*w*4f)``."""
        if context.input_mask is not None:
            xs = xs * context.input_mask
        dims = tf.shape(xs)
        images = tf.reshape(xs, [-1, *self.image])
        maps = self._input_conv(images, context.weights["kernel"])
        context.projected = True
        return tf.reshape(maps, [dims[0], dims[1], -1])

    def transition(
        self,
        x: tf.Tensor,
        states: list[tf.Tensor],
        recurrent: tf.Tensor,
        weights: dict[str, Any],
        projected: bool = False,
    ) -> tuple[tf.Tensor, list[tf.Tensor]]:
        maps = [-1, *self.map_shape[:2], 4 * self.filters]
        if projected:
            z = tf.reshape(x, maps)
        else:
            z = self._input_conv(tf.reshape(x, [-1, *self.image]), weights["kernel"])
        h = tf.reshape(recurrent, [-1, *self.map_shape])
        c = tf.reshape(states[1], [-1, *self.map_shape])
        z = z + tf.nn.conv2d(h, weights["recurrent_kernel"], strides=1, padding="SAME")
        i, f, g, o = tf.split(z, 4, axis=-1)
        c = self._gate(f) * c + self._gate(i) * self._activation(g)
        h = self._gate(o) * self._activation(c)
        flat_h = tf.reshape(h, tf.shape(states[0]))
        return flat_h, [flat_h, tf.reshape(c, tf.shape(states[1]))]
