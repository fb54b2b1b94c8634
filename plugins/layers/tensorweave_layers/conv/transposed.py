"""``ConvTranspose``: the transposed convolution (the gradient of a convolution with respect
to its input), which ``Conv1DTranspose``/``Conv2DTranspose``/``Conv3DTranspose`` set to a
rank. It maps each input step to ``strides`` output steps, so decoders and generators
(DCGAN, U-Net) upsample with it.

The kernel is ``[*kernel_size, n_units, in_channels]`` (output channels first, as in Keras
and ``tf.nn.conv_transpose``). Output sizes follow Keras: ``n * strides`` for ``"same"``,
``(n - 1) * strides + max(kernel, strides)`` for ``"valid"``, or set by ``output_padding``.
A ``dilation_rate`` is applied by spreading the kernel's taps apart, which every TensorFlow
CPU kernel supports.

>>> import tensorweave as tw
>>> class Conv4DTranspose(ConvTranspose):
...     spatial_rank = 4
>>> Conv4DTranspose(tw.Input(shape=(2, 2, 2, 2, 3)), 5, 3, strides=2, padding="same").shape
(None, 4, 4, 4, 4, 5)

``Conv1DTranspose``: 1-d transposed convolution (upsampling) over sequences ``[batch, time, channels]``.

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(batch_shape=(None, None, 3), name="x")
>>> up = Conv1DTranspose(x, n_units=4, kernel_size=3, strides=2, activation="relu", padding="same")
>>> up.shape, up.kernel.shape.as_list()[-2:]
((None, None, 4), [4, 3])
>>> up.compute(tf.ones((2, 5, 3))).shape.as_list()
[2, 10, 4]

``Conv2DTranspose``: 2-d transposed convolution (upsampling) over images ``[batch, height, width, channels]``.

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(shape=(4, 4, 3), name="x")
>>> up = Conv2DTranspose(x, n_units=4, kernel_size=3, strides=2, activation="relu", padding="same")
>>> up.shape, up.kernel.shape.as_list()[-2:]
((None, 8, 8, 4), [4, 3])
>>> up.compute(tf.ones((2, 4, 4, 3))).shape.as_list()
[2, 8, 8, 4]

``Conv3DTranspose``: 3-d transposed convolution (upsampling) over volumes ``[batch, depth, height, width, channels]``.

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(shape=(2, 4, 4, 3), name="x")
>>> up = Conv3DTranspose(x, n_units=4, kernel_size=3, strides=2, activation="relu", padding="same")
>>> up.shape, up.kernel.shape.as_list()[-2:]
((None, 4, 8, 8, 4), [4, 3])
>>> up.compute(tf.ones((2, 2, 4, 4, 3))).shape.as_list()
[2, 4, 8, 8, 4]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._spatial import transposed_length
from tensorweave_layers.conv.conv import ConvBase, IntOrInts
from tensorweave_layers.options.weights import (
    ActivationLike,
    ConstraintLike,
    Initializer,
    RegularizerLike,
)

__all__ = [
    "ConvTranspose",
    "dilate_kernel",
    "Conv1DTranspose",
    "Conv2DTranspose",
    "Conv3DTranspose",
]


def dilate_kernel(kernel: Any, dilation_rate: Sequence[int]) -> tf.Tensor:
    """``kernel`` with ``d - 1`` zeros between its taps along each spatial axis (the
    leading ``len(dilation_rate)`` axes).

    >>> import tensorflow as tf
    >>> k = tf.reshape(tf.constant([1.0, 2.0, 3.0]), (3, 1, 1))
    >>> tf.reshape(dilate_kernel(k, [2]), [-1]).numpy().tolist()
    [1.0, 0.0, 2.0, 0.0, 3.0]
    """
    k = tf.convert_to_tensor(kernel)
    for axis, rate in enumerate(dilation_rate):
        if rate == 1:
            continue
        taps = k.shape[axis]
        spread = tf.expand_dims(k, axis + 1)
        pads = [[0, 0]] * spread.shape.rank
        pads[axis + 1] = [0, rate - 1]
        spread = tf.pad(spread, pads)  # each tap followed by rate - 1 zeros
        shape = [*k.shape[:axis], taps * rate, *k.shape[axis + 1 :]]
        k = tf.reshape(spread, shape)[(slice(None),) * axis + (slice(0, (taps - 1) * rate + 1),)]
    return k


class ConvTranspose(ConvBase):
    """N-d transposed convolution; see ``ConvBase`` for the options shared by every
    convolution.

    Args:
        output_padding: extra output size per axis (an int or one per axis, each smaller
            than its stride), to pick one of the sizes a forward convolution maps back to
            the input size; ``None`` for Keras's default size.
    """

    def __init__(
        self,
        x: tw.Layer,
        n_units: int,
        kernel_size: IntOrInts = 3,
        *,
        strides: IntOrInts = 1,
        dilation_rate: IntOrInts = 1,
        padding: str = "valid",
        output_padding: IntOrInts | None = None,
        activation: ActivationLike = None,
        add_bias: bool = True,
        w_init: Initializer = "tensorweave-layers:glorot_uniform",
        b_init: Initializer = "tensorweave-layers:zeros",
        w_regularizer: RegularizerLike = None,
        b_regularizer: RegularizerLike = None,
        w_constraint: ConstraintLike = None,
        b_constraint: ConstraintLike = None,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        self._output_padding = output_padding
        super().__init__(
            x,
            n_units,
            kernel_size,
            strides=strides,
            dilation_rate=dilation_rate,
            padding=padding,
            activation=activation,
            add_bias=add_bias,
            w_init=w_init,
            b_init=b_init,
            w_regularizer=w_regularizer,
            b_regularizer=b_regularizer,
            w_constraint=w_constraint,
            b_constraint=b_constraint,
            name=name,
            share_state_with=share_state_with,
        )

    @property
    def output_padding(self) -> tuple[int, ...] | None:
        """The extra output size per axis, or ``None``."""
        spec = self._output_padding
        if spec is None:
            return None
        rank = self.spatial_rank
        values = [spec] * rank if isinstance(spec, int) else list(spec)
        return tuple(int(v) for v in values)

    def check_options(self) -> None:
        """``output_padding``: one non-negative int per axis, each below its stride."""
        padding = self._output_padding
        if padding is None:
            return
        values = [padding] * self.spatial_rank if isinstance(padding, int) else list(padding)
        bad = len(values) != self.spatial_rank or any(
            isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < s
            for v, s in zip(values, self.strides, strict=False)
        )
        if bad:
            raise tw.ArgumentError(
                f"{self.owner}: output_padding must be an int or {self.spatial_rank} ints, "
                f"each >= 0 and smaller than its stride {self.strides}, got {padding!r}."
            )

    def kernel_shapes(self) -> dict[str, tuple[int, ...]]:
        """``kernel`` ``[*kernel_size, n_units, in_channels]``."""
        return {"kernel": (*self.kernel_size, self.n_filters, self.in_channels)}

    def output_length(self, axis: int, length: Any) -> Any:
        """Keras's transposed-convolution size (``length`` may be a scalar tensor)."""
        extra = self.output_padding
        return transposed_length(
            length,
            kernel=self.kernel_size[axis],
            stride=self.strides[axis],
            dilation=self.dilation_rate[axis],
            padding=self.padding,
            output_padding=None if extra is None else extra[axis],
        )

    def convolve(self, x: tf.Tensor) -> tf.Tensor:
        """The full (``"valid"``) ``tf.nn.conv_transpose`` with the kernel's taps spread,
        then cut to the output size: from ``pad // 2`` for ``"same"`` (where a forward
        convolution would have padded), zeros appended where ``output_padding`` reaches
        past it. Equal to TensorFlow's own ``"same"``, which oneDNN refuses for some
        kernel and stride sizes on the CPU."""
        dims = tf.shape(x)
        begin: list[Any] = [0]
        size: list[Any] = [-1]
        pads: list[Any] = [[0, 0]]
        full_shape: list[Any] = [dims[0]]
        for i in range(self.spatial_rank):
            length = x.shape[1 + i] if x.shape[1 + i] is not None else dims[1 + i]
            effective = (self.kernel_size[i] - 1) * self.dilation_rate[i] + 1
            full = (length - 1) * self.strides[i] + effective
            out = self.output_length(i, length)
            before = tf.maximum(full - out, 0) // 2 if self.padding == "SAME" else 0
            full_shape.append(full)
            begin.append(before)
            size.append(out)
            pads.append([0, tf.maximum(before + out - full, 0)])
        full_shape.append(self.n_filters)
        y = tf.nn.conv_transpose(
            x,
            dilate_kernel(self.state.kernel, self.dilation_rate),
            tf.stack(full_shape),
            strides=self.strides,
            padding="VALID",
        )
        y = tf.pad(y, tf.stack([*pads, [0, 0]]))
        return tf.slice(y, tf.stack([*begin, 0]), tf.stack([*size, -1]))


class Conv1DTranspose(ConvTranspose):
    """1-d transposed convolution; see ``ConvTranspose`` for the options (``n_units``,
    ``kernel_size``, ``strides``, ``output_padding``…)."""

    spatial_rank: ClassVar[int] = 1


class Conv2DTranspose(ConvTranspose):
    """2-d transposed convolution; see ``ConvTranspose`` for the options (``n_units``,
    ``kernel_size``, ``strides``, ``output_padding``…)."""

    spatial_rank: ClassVar[int] = 2


class Conv3DTranspose(ConvTranspose):
    """3-d transposed convolution; see ``ConvTranspose`` for the options (``n_units``,
    ``kernel_size``, ``strides``, ``output_padding``…)."""

    spatial_rank: ClassVar[int] = 3
