"""What every convolution of this pack shares (``ConvBase``), and the plain convolution
``Conv`` that ``Conv1D``/``Conv2D``/``Conv3D`` set to a rank.

``ConvBase`` parses the options they all take, with Keras's names (``kernel_size``,
``strides``, ``dilation_rate``, ``padding``, ``activation``), computes the output shape at
construction (``None`` dimensions stay dynamic), creates the kernels a variant names in
``kernel_shapes`` and the bias with their regularizers and constraints (``w_regularizer``…),
and applies bias and activation after the variant's ``convolve``. ``reuse_with`` shares every kernel, and may change
``strides``/``dilation_rate``/``padding`` for the new node (the kernels must still fit).

``Conv`` adds ``groups`` (the channels split into groups convolved apart, as ResNeXt) and,
for sequences, ``padding="causal"`` (output step ``t`` sees inputs ``<= t`` only). A new
rank is a subclass setting ``spatial_rank``:

>>> import tensorweave as tw
>>> class Conv4D(Conv):
...     spatial_rank = 4
>>> Conv4D(tw.Input(shape=(3, 3, 3, 3, 2)), 4, 2, padding="valid").shape
(None, 2, 2, 2, 2, 4)

``Conv1D``: 1-d convolution over sequences ``[batch, time, channels]``.

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(batch_shape=(None, None, 3), name="x")
>>> conv = Conv1D(x, n_units=4, kernel_size=3, strides=2, activation="relu", padding="same")
>>> conv.shape
(None, None, 4)
>>> conv.compute(tf.ones((2, 5, 3))).shape.as_list()
[2, 3, 4]
>>> causal = Conv1D(x, n_units=4, kernel_size=3, padding="causal")  # step t sees <= t
>>> causal.compute(tf.ones((2, 5, 3))).shape.as_list()
[2, 5, 4]

``Conv2D``: 2-d convolution over images ``[batch, height, width, channels]``.

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(shape=(8, 8, 4), name="img")
>>> conv = Conv2D(x, n_units=6, kernel_size=(3, 3), strides=2, groups=2, activation="relu", padding="same")
>>> conv.shape, conv.kernel.shape.as_list()
((None, 4, 4, 6), [3, 3, 2, 6])
>>> conv.compute(tf.ones((2, 8, 8, 4))).shape.as_list()
[2, 4, 4, 6]
>>> conv.reuse_with(tw.Input(shape=(6, 6, 4)), padding="valid").shape  # same kernel
(None, 2, 2, 6)

``Conv3D``: 3-d convolution over volumes or clips ``[batch, depth, height, width, channels]``.

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(shape=(4, 8, 8, 3), name="clip")
>>> conv = Conv3D(x, n_units=4, kernel_size=3, padding="valid")
>>> conv.shape, conv.kernel.shape.as_list()
((None, 2, 6, 6, 4), [3, 3, 3, 3, 4])
>>> conv.compute(tf.ones((2, 4, 8, 8, 3))).shape.as_list()
[2, 2, 6, 6, 4]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner as name_owner
from tensorweave_layers._spatial import (
    CHANNELS_LAST,
    as_tuple,
    check_padding,
    check_spatial,
    describe,
    output_length,
)
from tensorweave_layers.options.weights import (
    ActivationLike,
    ConstraintLike,
    Initializer,
    RegularizerLike,
    WeightOptions,
    activation_fn,
    initial_value,
)

__all__ = ["ConvBase", "Conv", "Conv1D", "Conv2D", "Conv3D"]


IntOrInts = int | Sequence[int]


class ConvBase(tw.Layer):
    """The options, shapes, weights and bias of every convolution over
    ``[batch, *spatial, channels]`` inputs; variants fill in the hooks below.

    Args:
        x: the input layer, ``[batch, *spatial, in_channels]``.
        n_units: the number of output channels (filters).
        kernel_size: int or one int per spatial axis.
        strides: int or one per axis (``strides > 1`` and ``dilation_rate > 1`` do not
            combine).
        dilation_rate: int or one per axis.
        padding: ``"same"`` (output size ``ceil(n / strides)``) or ``"valid"``.
        activation: applied to the output (name or callable; ``None``: linear).
        add_bias: add a learned bias per output channel.
        w_init, b_init: initializers of the kernels and of the bias.
        w_regularizer, b_regularizer: regularizers of the kernels and of the bias (name,
            callable or config block).
        w_constraint, b_constraint: constraints applied after each update.
    """

    spatial_rank: ClassVar[int] = 0
    #: the paddings this variant accepts
    paddings: ClassVar[tuple[str, ...]] = ("same", "valid")

    def __init__(
        self,
        x: tw.Layer,
        n_units: int,
        kernel_size: IntOrInts = 3,
        *,
        strides: IntOrInts = 1,
        dilation_rate: IntOrInts = 1,
        padding: str = "valid",
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
        rank = self.spatial_rank
        owner = name_owner(type(self).__name__, name)
        if rank < 1:
            raise TypeError(f"{owner}: a convolution subclass sets spatial_rank >= 1.")
        check_spatial(x, type(self).__name__, rank, owner)
        self.owner = owner
        self.n_filters = tw.positive_int(n_units, "n_units", owner)
        self.in_channels = int(x.shape[-1])  # type: ignore[arg-type]
        self.kernel_size = as_tuple(kernel_size, rank, "kernel_size", owner)
        self.strides = as_tuple(strides, rank, "strides", owner)
        self.dilation_rate = as_tuple(dilation_rate, rank, "dilation_rate", owner)
        self.padding = check_padding(padding, owner, self.paddings)
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise tw.ArgumentError(
                f"{owner}: strides {self.strides} and dilation_rate {self.dilation_rate} "
                "cannot both exceed 1 (TensorFlow does not support it). Fix: use one of them."
            )
        self.activation = activation_fn(activation, owner)
        self.add_bias = bool(add_bias)
        self._w_init = tw.resolve("initializers", w_init, owner=owner, option="w_init")
        self._b_init = tw.resolve("initializers", b_init, owner=owner, option="b_init")
        self._weight_options = WeightOptions.resolve(
            owner, w_regularizer, b_regularizer, w_constraint, b_constraint
        )
        self.check_options()
        spatial = [self._axis_length(x, axis) for axis in range(rank)]
        if share_state_with is not None:
            self._check_shared(share_state_with, x)
        super().__init__(
            x,
            shape=(x.shape[0], *spatial, self.n_filters),
            dtype=x.dtype,
            name=name,
            share_state_with=share_state_with,
        )

    # -- the hooks a variant fills in ---------------------------------------------------
    def kernel_shapes(self) -> dict[str, tuple[int, ...]]:
        """The kernels this variant learns, by state attribute name."""
        return {"kernel": (*self.kernel_size, self.in_channels, self.n_filters)}

    def check_options(self) -> None:
        """Refuse option values the variant cannot use (called once the shared options and
        ``in_channels`` are set, before the output shape is made)."""

    def output_length(self, axis: int, length: int | None) -> int | None:
        """The output size of spatial axis ``axis`` for an input of size ``length``."""
        return output_length(
            length,
            kernel=self.kernel_size[axis],
            stride=self.strides[axis],
            dilation=self.dilation_rate[axis],
            padding=self.padding,
        )

    def convolve(self, x: tf.Tensor) -> tf.Tensor:
        """The convolution of ``x`` with this layer's kernels (before bias and activation)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement convolve(x).")

    # -- shared --------------------------------------------------------------------------
    def _axis_length(self, x: tw.Layer, axis: int) -> int | None:
        length = x.shape[1 + axis]
        out = self.output_length(axis, length)
        if out is not None and out < 1:
            effective = (self.kernel_size[axis] - 1) * self.dilation_rate[axis] + 1
            raise tw.ShapeError(
                f"{self.owner}: input {describe(x)} is too small on spatial axis {axis} "
                f"({length}) for a kernel spanning {effective} with padding="
                f"{self.padding.lower()!r}: the output would have {out} steps. Fix: use "
                "padding='same', a smaller kernel_size or dilation_rate, or a larger input."
            )
        return out

    def _check_shared(self, other: tw.Layer, x: tw.Layer) -> None:
        for name, have in self.kernel_shapes().items():
            want = tuple(getattr(other.state, name).shape.as_list())
            if want != have:
                raise tw.ShapeError(
                    f"{self.owner}: cannot share the {name} of {other.name!r} with shape "
                    f"{want}: this node needs {have} for input {describe(x)}. Fix: reuse it "
                    "on inputs with as many channels, and keep kernel_size/n_units."
                )

    def init_state(self) -> None:
        """Create the kernels of ``kernel_shapes`` and, optionally, ``bias``."""
        options = self._weight_options
        for name, shape in self.kernel_shapes().items():
            value = initial_value(self._w_init, shape, self.dtype, owner=self.owner)
            setattr(self.state, name, options.weight(self.state, name, value))
        if self.add_bias:
            value = initial_value(
                self._b_init, (self.n_filters,), self.dtype, owner=self.owner, option="b_init"
            )
            self.state.bias = options.bias(self.state, "bias", value)

    def compute(self, x: Any) -> tf.Tensor:
        """``activation(convolve(x) + bias)``."""
        y = self.convolve(tf.convert_to_tensor(x))
        # The bias read once (under a mixed policy each state read is a read and a cast) and
        # added with a broadcast add; why not ``tf.nn.bias_add``: docs/precision.md (#39).
        bias = getattr(self.state, "bias", None) if self.add_bias else None
        if bias is not None:
            y = y + bias
        return self.activation(y)


class Conv(ConvBase):
    """N-d convolution; see ``ConvBase`` for the options shared by every convolution.

    Args:
        groups: split the input channels into ``groups`` groups, each convolved with its
            own ``n_units / groups`` filters (both divisible by ``groups``); the kernel is
            ``[*kernel_size, in_channels / groups, n_units]``.
        padding: also ``"causal"`` for sequences (``Conv1D``): the input is padded on the
            left only, so step ``t`` of the output depends on steps ``<= t``.
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
        groups: int = 1,
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
        self.groups = tw.positive_int(groups, "groups", name_owner(type(self).__name__, name))
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

    def check_options(self) -> None:
        """``in_channels`` and ``n_units`` must both divide into ``groups``."""
        if self.in_channels % self.groups or self.n_filters % self.groups:
            raise tw.ArgumentError(
                f"{self.owner}: groups={self.groups} must divide both the input channels "
                f"({self.in_channels}) and n_units ({self.n_filters}). Fix: pick a common "
                "divisor."
            )

    def kernel_shapes(self) -> dict[str, tuple[int, ...]]:
        """``kernel`` ``[*kernel_size, in_channels / groups, n_units]``."""
        per_group = self.in_channels // self.groups
        return {"kernel": (*self.kernel_size, per_group, self.n_filters)}

    def convolve(self, x: tf.Tensor) -> tf.Tensor:
        """``tf.nn.convolution`` per group (left-padded first when causal)."""
        padding = self.padding
        if padding == "CAUSAL":
            left = (self.kernel_size[0] - 1) * self.dilation_rate[0]
            x = tf.pad(x, [[0, 0], [left, 0], [0, 0]])
            padding = "VALID"
        kernel = self.state.kernel
        if self.groups == 1:
            return self._conv(x, kernel, padding)
        # one convolution per group: grouped kernels are not supported by every TF kernel
        # (3-d on CPU, builds without oneDNN), and Keras itself falls back to XLA for them
        parts = zip(
            tf.split(x, self.groups, axis=-1),
            tf.split(kernel, self.groups, axis=-1),
            strict=True,
        )
        return tf.concat([self._conv(xs, ks, padding) for xs, ks in parts], axis=-1)

    def _conv(self, x: tf.Tensor, kernel: Any, padding: str) -> tf.Tensor:
        return tf.nn.convolution(
            x,
            kernel,
            strides=self.strides,
            padding=padding,
            dilations=self.dilation_rate,
            data_format=CHANNELS_LAST.get(self.spatial_rank),
        )


class Conv1D(Conv):
    """1-d convolution; see ``Conv`` for the options (``n_units`` filters, ``kernel_size``,
    ``groups``, ``padding="causal"``…)."""

    spatial_rank: ClassVar[int] = 1
    paddings: ClassVar[tuple[str, ...]] = ("same", "valid", "causal")


class Conv2D(Conv):
    """2-d convolution; see ``Conv`` for the options (``n_units`` filters, ``kernel_size``,
    ``groups``…)."""

    spatial_rank: ClassVar[int] = 2


class Conv3D(Conv):
    """3-d convolution; see ``Conv`` for the options (``n_units`` filters, ``kernel_size``,
    ``groups``…)."""

    spatial_rank: ClassVar[int] = 3
