"""How this pack's layers make their weights: a regularizer and a constraint for the weights
(``w_regularizer=``, ``w_constraint=``) and for the biases (``b_regularizer=``,
``b_constraint=``), every layer alike.

An option is a registered name (``"l2"``, ``"max_norm.v1"``: the factory called with its
defaults, as Keras reads ``kernel_regularizer="l2"``), a class (called the same way), a
function (used as it is: ``L2(0.1)``, a config block's result, ``lambda w: ...``) or
``None``. Names go through ``tw.resolve``, so an unknown one fails at construction naming
the layer and the option. The regularizer is recorded with the variable on the layer's
state (``LayerState.regularize``, summed by ``tw.regularization_loss``); the constraint is
TensorFlow's own ``tf.Variable(..., constraint=fn)``, applied by the trainer after updates.
``WeightOptions`` is public (``tensorweave_layers.WeightOptions``): another pack's layers
give their weights the same options through it.

>>> import tensorflow as tf, tensorweave as tw
>>> options = WeightOptions.resolve("Linear 'enc'", w_regularizer="l2", b_constraint="non_neg")
>>> state = tw.LayerState("enc")
>>> state.w = options.weight(state, "w", tf.ones((2, 2)))
>>> state.b = options.bias(state, "b", [-1.0, 1.0])
>>> [round(float(penalty(w)), 4) for w, penalty in state.regularizers]
[0.04]
>>> state.b.constraint(state.b).numpy().tolist()
[0.0, 1.0]

Activation and initializer options of this pack's layers, resolved by ``tw.resolve``.

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

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias, cast

import tensorflow as tf

import tensorweave as tw

__all__ = [
    "RegularizerLike",
    "ConstraintLike",
    "WeightOptions",
    "resolve_factory",
    "ActivationLike",
    "InitializerLike",
    "Initializer",
    "activation_fn",
    "initial_value",
]


RegularizerLike: TypeAlias = str | Callable[..., Any] | None
ConstraintLike: TypeAlias = str | Callable[..., Any] | None
Function: TypeAlias = Callable[[Any], Any]


def resolve_factory(kind: str, spec: Any, *, owner: str, option: str) -> Function | None:
    """The function ``spec`` means for an option of a factory kind (``regularizers``,
    ``constraints``): a name or a class is called with its defaults, a function is kept."""
    if spec is None:
        return None
    if isinstance(spec, str):
        factory = tw.resolve(kind, spec, owner=owner, option=option)
        made: Function = factory()
        return made
    if inspect.isclass(spec):
        return cast(Function, spec())
    kept: Function = tw.resolve(kind, spec, owner=owner, option=option)  # a TypeError if not
    return kept


@dataclass(frozen=True)
class WeightOptions:
    """The resolved regularizers and constraints of one layer's weights and biases."""

    w_regularizer: Function | None = None
    b_regularizer: Function | None = None
    w_constraint: Function | None = None
    b_constraint: Function | None = None

    @classmethod
    def resolve(
        cls,
        owner: str,
        w_regularizer: RegularizerLike = None,
        b_regularizer: RegularizerLike = None,
        w_constraint: ConstraintLike = None,
        b_constraint: ConstraintLike = None,
    ) -> WeightOptions:
        """Resolve the four options of the layer ``owner`` (``"Conv2D 'conv'"``)."""
        return cls(
            w_regularizer=resolve_factory(
                "regularizers", w_regularizer, owner=owner, option="w_regularizer"
            ),
            b_regularizer=resolve_factory(
                "regularizers", b_regularizer, owner=owner, option="b_regularizer"
            ),
            w_constraint=resolve_factory(
                "constraints", w_constraint, owner=owner, option="w_constraint"
            ),
            b_constraint=resolve_factory(
                "constraints", b_constraint, owner=owner, option="b_constraint"
            ),
        )

    def weight(
        self, state: tw.LayerState, name: str, value: Any, *, trainable: bool = True
    ) -> tf.Variable:
        """A weight variable of ``value`` named ``name``, with the weights' regularizer and
        constraint (assign it to ``state``)."""
        variable = tf.Variable(value, name=name, trainable=trainable, constraint=self.w_constraint)
        return state.regularize(variable, self.w_regularizer)

    def bias(self, state: tw.LayerState, name: str, value: Any) -> tf.Variable:
        """A bias variable, with the biases' regularizer and constraint."""
        variable = tf.Variable(value, name=name, constraint=self.b_constraint)
        return state.regularize(variable, self.b_regularizer)

    def scale_and_shift(
        self, state: tw.LayerState, n: int, dtype: tf.DType, *, scale: bool, center: bool
    ) -> None:
        """A normalization's ``gamma`` (ones; the weights' options) and ``beta`` (zeros; the
        biases' options), ``n`` of each, when ``scale`` and ``center``."""
        if scale:
            state.gamma = self.weight(state, "gamma", tf.ones([n], dtype))
        if center:
            state.beta = self.bias(state, "beta", tf.zeros([n], dtype))


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
