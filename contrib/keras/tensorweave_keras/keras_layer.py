"""``KerasLayer.v1``: any Keras 3 layer or model as a tensorweave layer.

The Keras object lives in the layer's state, so ``reuse_with`` shares it and its weights.
It is built when the tensorweave layer is made, by a symbolic call on the inputs' shapes,
which also gives the output shape. Its variables (on the TensorFlow backend, each Keras
weight wraps one ``tf.Variable``) are tracked in the state: ``layer.trainable_variables``,
``tf.GradientTape`` and ``tf.train.Checkpoint`` see exactly the Keras weights, and
training either side updates the other, since the storage is the same.

>>> import keras, numpy as np, tensorweave as tw
>>> dense = keras.layers.Dense(2, kernel_initializer="ones")
>>> y = KerasLayer(tw.Input(n_units=3, value=np.ones((1, 3), "float32")), layer=dense)
>>> y().numpy().tolist(), len(y.trainable_variables)
([[3.0, 3.0]], 2)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeAlias

import keras
import tensorflow as tf

import tensorweave as tw

__all__ = ["KerasLayer", "KerasLike", "make_keras"]

KerasLike: TypeAlias = keras.Layer | Callable[[], keras.Layer] | Mapping[str, Any]


def make_keras(layer: Any) -> keras.Layer:
    """The Keras object described by ``layer``.

    Accepts a ``keras.Layer`` (or ``keras.Model``) instance, used as it is (wrapping the
    same instance twice shares its weights, as in Keras); a callable that returns a fresh
    one (``lambda: keras.layers.Dense(4)``), so every tensorweave layer gets its own
    weights; or a config as ``keras.saving.serialize_keras_object`` writes it
    (``{"class_name": "Dense", "config": {"units": 4}}``), for configuration files, read
    in Keras's safe mode (no Python code: a ``keras.layers.Lambda`` of a lambda is refused).
    """
    if isinstance(layer, keras.Layer):
        return layer
    if isinstance(layer, Mapping):
        config = dict(layer)
        config.setdefault("module", "keras.layers")
        made = keras.saving.deserialize_keras_object(config, safe_mode=True)
    elif callable(layer):
        made = layer()
    else:
        made = layer
    if not isinstance(made, keras.Layer):
        raise TypeError(
            f"KerasLayer: layer= must be a keras.Layer, a callable returning one, or a Keras "
            f"config dict; got {type(made).__name__}. Fix: e.g. layer=keras.layers.Dense(4)."
        )
    return made


def _symbolic(inputs: tuple[tw.Layer, ...]) -> Any:
    tensors = [keras.KerasTensor(i.shape, dtype=i.dtype.name, sparse=i.sparse) for i in inputs]
    return tensors[0] if len(tensors) == 1 else tensors


def _describe(inputs: tuple[tw.Layer, ...]) -> str:
    return ", ".join(f"{i.name!r} {i.shape} {i.dtype.name}" for i in inputs)


class KerasLayer(tw.Layer):
    """Apply a Keras layer or model to the inputs (one input, or a list of several).

    Args:
        *inputs: the input layers; a single one is passed to Keras as a tensor, several as
            a list (for ``keras.layers.Add``, or a functional model with several inputs).
        layer: the Keras object; see ``make_keras`` for the accepted forms.
        training: passed to the Keras call (``None``: Keras's default, inference);
            ``reuse_with(x, training=True)`` makes a training-mode node sharing the weights.
        name: a readable name (default: ``keras_layer``, ``keras_layer_1``…).
        share_state_with: a ``KerasLayer`` whose Keras object to use (``reuse_with`` sets
            it); ``layer`` is then ignored.
    """

    # the Keras layer computes under its own dtype policy (float32 by default) on its own
    # float32 weights: float32 under a tensorweave mixed precision policy
    compute_precision = "float32"

    def __init__(
        self,
        *inputs: tw.Layer,
        layer: KerasLike,
        training: bool | None = None,
        name: str | None = None,
        share_state_with: KerasLayer | None = None,
    ) -> None:
        if not inputs:
            raise TypeError("KerasLayer needs at least one input layer, e.g. KerasLayer(x, ...).")
        # A shared node reuses the Keras object itself; otherwise make (or take) one.
        obj = share_state_with.keras_layer if share_state_with else make_keras(layer)
        self.training = training
        kwargs = {} if training is None else {"training": training}
        try:
            out = obj(_symbolic(inputs), **kwargs)
        except Exception as err:  # Keras refused these shapes: say which and why
            raise tw.ShapeError(
                f"KerasLayer: {type(obj).__name__} {obj.name!r} does not fit the inputs "
                f"({_describe(inputs)}): {type(err).__name__}: {err}"
            ) from err
        if not isinstance(out, keras.KerasTensor):
            raise tw.ShapeError(
                f"KerasLayer: {type(obj).__name__} {obj.name!r} returns "
                f"{type(out).__name__}, not one tensor; a tensorweave layer has one output. "
                "Fix: wrap a model with one output, e.g. keras.Model(m.inputs, m.outputs[0])."
            )
        self._keras = obj  # a plain attribute: its variables are state.keras_variables
        super().__init__(
            *inputs,
            shape=tuple(out.shape),
            dtype=out.dtype,
            sparse=bool(getattr(out, "sparse", False)),
            name=name,
            share_state_with=share_state_with,
        )

    def init_state(self) -> None:
        """Track the ``tf.Variable`` under each Keras variable of the Keras object."""
        obj = self._keras
        variables = []
        for v in obj.variables:
            raw = v.value
            if not isinstance(raw, tf.Variable):
                raise TypeError(
                    f"KerasLayer: Keras variable {v.path!r} is not backed by a tf.Variable; "
                    "Keras must use its TensorFlow backend. Fix: KERAS_BACKEND=tensorflow."
                )
            variables.append(raw)
        self.state.keras_variables = variables

    def config_arguments(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """The arguments a saved config writes: the Keras object as Keras serializes it
        (``keras.saving.serialize_keras_object``), checked to load back in Keras's safe
        mode; a ``ValueError`` says why when it cannot (a Python lambda inside, a class
        Keras does not know), which the save reports."""
        args, kwargs = self._tw_init_args
        config = keras.saving.serialize_keras_object(self._keras)
        try:
            keras.saving.deserialize_keras_object(config, safe_mode=True)
        except Exception as err:
            raise ValueError(
                f"its Keras {type(self._keras).__name__} {self._keras.name!r} cannot be "
                f"written as a config that loads safely ({type(err).__name__}: "
                f"{str(err).split('. ')[0]}). Fix: build it from Keras layers that "
                "serialize (a registered class, no Python lambda), or save the weights "
                "alone (tf.train.Checkpoint)."
            ) from err
        return args, {**kwargs, "layer": config}

    @property
    def keras_layer(self) -> keras.Layer:
        """The wrapped Keras layer or model (shared by every ``reuse_with`` copy)."""
        obj: keras.Layer = self._keras
        return obj

    @property
    def trainable_variables(self) -> tuple[tf.Variable, ...]:
        """The Keras object's trainable weights, as Keras sees them now (honours freezing)."""
        return tuple(v.value for v in self._keras.trainable_variables)

    def compute(self, *tensors: Any) -> Any:
        """Call the Keras object on the tensors."""
        x = tensors[0] if len(tensors) == 1 else list(tensors)
        if self.training is None:
            return self._keras(x)
        return self._keras(x, training=self.training)
