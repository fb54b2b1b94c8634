"""``EinsumDense``: a dense map written as an einsum equation, Keras's ``EinsumDense``.

``y = activation(einsum(equation, x, kernel) + bias)``: the equation names the axes of the
input, of the kernel and of the output (``"abc,cd->abd"`` is a ``Linear`` on the last axis
of a sequence; ``"abc,cde->abde"`` projects each step to heads). Axes of the kernel take
their sizes from the input or from ``output_shape`` (the output shape without the batch
axis, ``None`` where the input gives it), so the kernel is made at construction.
``bias_axes`` names the output axes the bias spans (it starts at zero). An ellipsis stands for axes passed
through: ``"...b,bc->...c"``. The parsing follows Keras, so weights carry over both ways.

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(batch_shape=(None, None, 4), name="x")
>>> heads = EinsumDense(x, "abc,cde->abde", output_shape=(None, 2, 3), bias_axes="de")
>>> heads.shape, heads.kernel.shape.as_list(), heads.bias.shape.as_list()
((None, None, 2, 3), [4, 2, 3], [2, 3])
>>> heads.compute(tf.ones((1, 5, 4))).shape.as_list()
[1, 5, 2, 3]
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import describe, require_dense
from tensorweave_layers._shapes import owner as name_owner
from tensorweave_layers.options.weights import (
    ActivationLike,
    ConstraintLike,
    InitializerLike,
    RegularizerLike,
    WeightOptions,
    activation_fn,
    initial_value,
)

__all__ = ["EinsumDense", "einsum_shapes"]

_FORMS = (
    (r"([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)", False),
    (r"0([a-zA-Z]+),([a-zA-Z]+)->0([a-zA-Z]+)", True),
    (r"([a-zA-Z]{2,})0,([a-zA-Z]+)->([a-zA-Z]+)0", False),
)

Dims = list[int | None]


def einsum_shapes(
    equation: str,
    input_shape: Sequence[int | None],
    output_shape: Sequence[int | None] | int,
    bias_axes: str | None,
) -> tuple[Dims, Dims | None, Dims]:
    """``(kernel_shape, bias_shape, full_output_shape)`` for ``equation`` (Keras's rules).

    >>> einsum_shapes("abc,cd->abd", (None, 5, 3), (None, 4), "d")
    ([3, 4], [4], [None, 5, 4])
    """
    dotted = equation.replace("...", "0")
    forms = ((re.fullmatch(pattern, dotted), left) for pattern, left in _FORMS)
    found, left_elided = next(((m, left) for m, left in forms if m is not None), (None, False))
    if found is None:
        raise ValueError(
            f"equation {equation!r} is not of the form 'ab,bc->ac', '...b,bc->...c' or "
            "'ab...,bc->ac...'"
        )
    in_spec, w_spec, out_spec = found.groups()
    elided = len(input_shape) - len(in_spec)
    out: Dims = [output_shape] if isinstance(output_shape, int) else list(output_shape)
    out.insert(0, input_shape[0])
    if elided > 0 and left_elided:
        out[1:1] = input_shape[1:elided]
    elif elided > 0:
        out.extend(input_shape[len(input_shape) - elided :])
    shift = elided if left_elided else 0
    in_axis = {
        d: i + shift - (len(input_shape) if left_elided else 0) for i, d in enumerate(in_spec)
    }
    out_axis = {d: i + shift for i, d in enumerate(out_spec)}
    for d in in_spec:
        if d in out_axis:
            have, want = input_shape[in_axis[d]], out[out_axis[d]]
            if want is not None and have is not None and want != have:
                raise ValueError(f"axis {d!r} is {have} in the input but {want} in output_shape")
            if want is None:
                out[out_axis[d]] = have
    for d in out_spec:
        if d not in in_spec and d not in w_spec:
            raise ValueError(f"output axis {d!r} is neither in the input nor in the kernel")
    kernel: Dims = []
    for d in w_spec:
        if d in out_axis:
            kernel.append(out[out_axis[d]])
        elif d in in_axis:
            kernel.append(input_shape[in_axis[d]])
        else:
            raise ValueError(f"kernel axis {d!r} is neither in the input nor in the output")
    bias: Dims | None = None
    if bias_axes is not None:
        missing = [c for c in bias_axes if c not in out_spec]
        if missing:
            raise ValueError(f"bias axes {missing} are not output axes of {out_spec!r}")
        first = min(out_spec.find(c) for c in bias_axes)
        bias = [out[out_axis[c]] if c in bias_axes else 1 for c in out_spec[first:]]
        if not left_elided:
            bias.extend([1] * max(elided, 0))
    return kernel, bias, out


class EinsumDense(tw.Layer):
    """``activation(einsum(equation, x, kernel) + bias)``.

    Args:
        x: the dense input.
        equation: ``"<input axes>,<kernel axes>-><output axes>"``, optionally with ``...``.
        output_shape: the output shape without the batch axis (an int for rank 2), ``None``
            where the input gives the size.
        activation: applied to the output (``None``: none).
        bias_axes: the output axes the bias spans (``None``: no bias; Keras's name); the
            bias starts at zero.
        w_init: initializer of the kernel.
        w_regularizer, b_regularizer, w_constraint, b_constraint: penalties on, and
            projections after each update of, the kernel and the bias.
        name, share_state_with: see ``tw.Layer``.
    """

    def __init__(
        self,
        x: tw.Layer,
        equation: str,
        output_shape: Sequence[int | None] | int,
        *,
        activation: ActivationLike = None,
        bias_axes: str | None = None,
        w_init: InitializerLike = "tensorweave-layers:glorot_uniform",
        w_regularizer: RegularizerLike = None,
        b_regularizer: RegularizerLike = None,
        w_constraint: ConstraintLike = None,
        b_constraint: ConstraintLike = None,
        name: str | None = None,
        share_state_with: EinsumDense | None = None,
    ) -> None:
        who = name_owner("EinsumDense", name)
        require_dense(x, who)
        try:
            kernel, bias, out = einsum_shapes(equation, x.shape, output_shape, bias_axes)
        except (ValueError, TypeError) as err:
            raise tw.ArgumentError(
                f"{who}: cannot use equation={equation!r} with output_shape={output_shape!r} "
                f"on input {describe(x)}: {err}.\n  Fix: name each input axis once, take every "
                "kernel axis from the input or the output, and give output_shape without the "
                "batch axis (Keras's convention)."
            ) from err
        unknown = [d for d in (*kernel, *(bias or [])) if d is None]
        if unknown:
            raise tw.ShapeError(
                f"{who}: the kernel {kernel} or bias {bias} of {equation!r} has a size neither "
                f"the input {describe(x)} nor output_shape={output_shape!r} gives.\n  Fix: give "
                "that axis a size in output_shape, or make it known in the input."
            )
        self.equation = equation
        self.bias_axes = bias_axes
        self._kernel_shape = [int(d) for d in kernel]  # type: ignore[arg-type]
        self._bias_shape = None if bias is None else [int(d) for d in bias]  # type: ignore[arg-type]
        self._activation = activation_fn(activation, who)
        self._w_init = tw.resolve("initializers", w_init, owner=who, option="w_init")
        self._weight_options = WeightOptions.resolve(
            who, w_regularizer, b_regularizer, w_constraint, b_constraint
        )
        super().__init__(x, shape=out, dtype=x.dtype, name=name, share_state_with=share_state_with)

    def init_state(self) -> None:
        """The ``kernel`` and, with ``bias_axes``, the ``bias``."""
        who = name_owner("EinsumDense", self.name)
        value = initial_value(self._w_init, self._kernel_shape, self.dtype, owner=who)
        self.state.kernel = self._weight_options.weight(self.state, "kernel", value)
        if self._bias_shape is not None:
            bias = tf.zeros(self._bias_shape, self.dtype)
            self.state.bias = self._weight_options.bias(self.state, "bias", bias)

    def compute(self, x: Any) -> tf.Tensor:
        """``activation(einsum(equation, x, kernel) + bias)``."""
        y = tf.einsum(self.equation, x, self.state.kernel)
        if self._bias_shape is not None:
            y = y + self.state.bias
        return self._activation(y)
