"""Activation and initializer options of this pack's layers, resolved by ``tw.resolve``.

An option names a registered component (``"relu"``, ``"glorot_uniform.v1"``,
``"my-pack:my_init.v1"``; a bare name is the latest version) or is a callable used as it
is; an unknown name fails at construction, naming the layer and the option. Initial values
come from ``tf.random`` ops at variable creation (seeded by ``tf.random.set_seed``), so two
layers always start with different weights.

>>> import tensorflow as tf
>>> w = initial_value("glorot_uniform", (3, 3, 2, 4), tf.float32, owner="Conv2D 'conv'")
>>> w.shape.as_list()
[3, 3, 2, 4]
>>> initial_value("glorot_unifrom", (2,), tf.float32, owner="Conv2D 'conv'", option="w_init")
Traceback (most recent call last):
...
tensorweave.errors.UnknownComponentError: Conv2D 'conv': w_init='glorot_unifrom': no initializers component ...
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

import tensorflow as tf

import tensorweave as tw

__all__ = ["ActivationLike", "InitializerLike", "Initializer", "activation_fn", "initial_value"]

ActivationLike: TypeAlias = str | Callable[..., Any] | None
InitializerLike: TypeAlias = str | Callable[..., Any]
Initializer = InitializerLike


def activation_fn(
    activation: ActivationLike, owner: str, option: str = "activation"
) -> Callable[..., Any]:
    """The activation ``activation`` names (``None``: identity), through ``tw.resolve``."""
    fn: Callable[..., Any] = tw.resolve(
        "activations", activation, default="tensorweave-layers:identity", owner=owner, option=option
    )
    return fn


def initial_value(
    init: InitializerLike,
    shape: Sequence[int],
    dtype: tf.DType | str,
    *,
    owner: str = "",
    option: str = "w_init",
) -> tf.Tensor:
    """A fresh initial value of ``shape`` from ``init`` (a name or a function
    ``(shape, dtype) -> tensor``), checked to have that shape."""
    dtype = tf.as_dtype(dtype)
    fn = tw.resolve("initializers", init, owner=owner, option=option)
    value = tf.convert_to_tensor(fn(tuple(int(d) for d in shape), dtype), dtype=dtype)
    if value.shape.as_list() != [int(d) for d in shape]:
        who = f"{owner}: " if owner else ""
        raise tw.ShapeError(
            f"{who}{option}={init!r} made an initial value of shape {value.shape.as_list()}, "
            f"needed {list(shape)}. Fix: an initializer must return a tensor of the shape it "
            "is given."
        )
    return value
