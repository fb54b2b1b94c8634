"""The convolution layer shared by ``Conv1D`` and ``Conv2D`` (they differ only in rank).

Output sizes are computed at construction from the input shape, ``stride``, ``dilation``
and ``padding`` (``None`` dimensions stay dynamic); the kernel has shape
``[*kernel_size, in_channels, n_units]``. ``reuse_with`` shares the kernel and bias, and may
change ``stride``/``dilation``/``padding`` for the new node (the kernel must still fit).

Subclasses set only ``spatial_rank`` and ``layout``; the constructor is this one:

>>> import tensorweave as tw
>>> class Conv3D(Conv):
...     spatial_rank = 3
...     layout = "[batch, depth, height, width, channels]"
>>> Conv3D(tw.Input(shape=(4, 8, 8, 3)), 4, 3, padding="valid").shape
(None, 2, 6, 6, 4)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import tensorflow as tf

import tensorweave as tw

from ._param_init import Initializer, initial_value
from ._shapes import owner as name_owner
from ._spatial import as_tuple, check_padding, check_rank, describe, output_length

__all__ = ["Conv"]


class Conv(tw.Layer):
    """N-d convolution over ``[batch, *spatial, channels]`` inputs (``spatial_rank`` 1 or 2).

    Args:
        x: the input layer, ``[batch, *spatial, in_channels]``.
        n_units: the number of filters (output channels).
        kernel_size: int or one int per spatial axis.
        stride: int or one per axis (``stride > 1`` and ``dilation > 1`` do not combine).
        dilation: int or one per axis.
        padding: ``"same"`` (output size ``ceil(n / stride)``) or ``"valid"``.
        add_bias: add a learned bias per filter.
        w_init: initializer of the kernel (registered name or ``(shape, dtype)`` function).
        b_init: initializer of the bias.
    """

    spatial_rank: ClassVar[int] = 0
    layout: ClassVar[str] = ""

    def __init__(
        self,
        x: tw.Layer,
        n_units: int,
        kernel_size: int | Sequence[int] = 3,
        *,
        stride: int | Sequence[int] = 1,
        dilation: int | Sequence[int] = 1,
        padding: str = "same",
        add_bias: bool = True,
        w_init: Initializer = "tensorweave-layers:glorot_uniform",
        b_init: Initializer = "tensorweave-layers:zeros",
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        rank = self.spatial_rank
        owner = name_owner(type(self).__name__, name)
        if rank not in (1, 2, 3):
            raise TypeError(f"{owner}: a Conv subclass sets spatial_rank to 1, 2 or 3.")
        layout = self.layout or f"[batch, {', '.join(f'd{i}' for i in range(rank))}, channels]"
        check_rank(
            x,
            rank + 2,
            layout,
            owner,
            "reshape the input to "
            + layout
            + (
                "; use Conv1D for [batch, time, channels]"
                if rank == 2
                else "; use Conv2D for images [batch, height, width, channels]"
            )
            + ".",
        )
        if int(n_units) < 1:
            raise ValueError(f"{owner}: n_units (filters) must be positive, got {n_units!r}.")
        self.kernel_size = as_tuple(kernel_size, rank, "kernel_size", owner)
        self.strides = as_tuple(stride, rank, "stride", owner)
        self.dilations = as_tuple(dilation, rank, "dilation", owner)
        self.padding = check_padding(padding, owner)
        if max(self.strides) > 1 and max(self.dilations) > 1:
            raise ValueError(
                f"{owner}: stride {self.strides} and dilation {self.dilations} cannot both "
                "exceed 1 (TensorFlow does not support it). Fix: use one of them."
            )
        self.n_units_out = int(n_units)
        self.in_channels = int(x.shape[-1])  # type: ignore[arg-type]
        self.add_bias = bool(add_bias)
        self._w_init = tw.resolve("initializers", w_init, owner=owner, option="w_init")
        self._b_init = tw.resolve("initializers", b_init, owner=owner, option="b_init")
        spatial = []
        for axis, length in enumerate(x.shape[1:-1]):
            out = output_length(
                length,
                kernel=self.kernel_size[axis],
                stride=self.strides[axis],
                dilation=self.dilations[axis],
                padding=self.padding,
            )
            if out is not None and out < 1:
                effective = (self.kernel_size[axis] - 1) * self.dilations[axis] + 1
                raise tw.ShapeError(
                    f"{owner}: input {describe(x)} is too small on spatial axis {axis} "
                    f"({length}) for a kernel spanning {effective} with padding='valid'. "
                    "Fix: use padding='same', a smaller kernel_size or dilation, or a larger input."
                )
            spatial.append(out)
        if share_state_with is not None:
            want = tuple(share_state_with.state.kernel.shape.as_list())
            have = (*self.kernel_size, self.in_channels, self.n_units_out)
            if want != have:
                raise tw.ShapeError(
                    f"{owner}: cannot share the kernel of {share_state_with.name!r} with shape "
                    f"{want}: this node needs {have} for input {describe(x)}. Fix: reuse it on "
                    f"inputs with {want[-2]} channels and keep kernel_size/n_units."
                )
        super().__init__(
            x,
            shape=(x.shape[0], *spatial, self.n_units_out),
            dtype=x.dtype,
            name=name,
            share_state_with=share_state_with,
        )

    def init_state(self) -> None:
        """Create ``kernel`` ``[*kernel_size, in, n_units]`` and, optionally, ``bias``."""
        shape = (*self.kernel_size, self.in_channels, self.n_units_out)
        self.state.kernel = tf.Variable(
            initial_value(self._w_init, shape, self.dtype), name="kernel"
        )
        if self.add_bias:
            self.state.bias = tf.Variable(
                initial_value(self._b_init, (self.n_units_out,), self.dtype), name="bias"
            )

    def compute(self, x: Any) -> tf.Tensor:
        """``tf.nn.convolution`` with this layer's kernel, plus the bias."""
        y = tf.nn.convolution(
            x,
            self.state.kernel,
            strides=self.strides,
            padding=self.padding,
            dilations=self.dilations,
        )
        if self.add_bias and hasattr(self.state, "bias"):
            # A broadcast add, not tf.nn.bias_add: on CPU its gradient (a reduce_sum) trained
            # the CIFAR CNN 2-9% faster than BiasAddGrad (benchmarks/bench_models.py).
            y = y + self.state.bias
        return y
