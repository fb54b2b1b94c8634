"""Keras weights into tensorweave: ``from_keras(keras_model, module)`` and ``weights=``.

A builder of this pack names its layers as the Keras application does (``conv1_conv``,
``conv2_block1_1_bn``…), so a Keras model's weights pair with the module's variables by
layer name, then by weight name within a layer (``kernel``, ``bias``, ``gamma``, ``beta``,
``moving_mean``, ``moving_variance``; Keras's ``Dense`` ``kernel`` is ``Linear``'s
``weights``). Keras layers named automatically (``layer_normalization_3``), which no fixed
name can match, pair with the module's remaining layers in order when their weights fit.
A kernel whose shape differs only by axes of size one is reshaped (a Keras convolution with
``groups`` equal to its channels is a ``DepthwiseConv2D`` here). Everything is checked
before anything is assigned: a Keras model that does not fit leaves the module untouched
and raises ``WeightsError`` naming the layers.

``load_weights(module, path)`` reads a local ``.keras`` or ``.h5`` file: through the Keras
application the builder corresponds to (so Keras's own weight files load), or, for a
builder without one, as a whole Keras model. Keras is imported only here.

>>> import keras, numpy as np, tensorweave as tw
>>> keras_net = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, name="dense")])
>>> x = tw.Input(n_units=3)
>>> ours = tw.Module(x, tw.layers["FC.v1"](x, 2, activation=None, name="net/dense"))
>>> _ = from_keras(keras_net, ours)
>>> v = np.ones((1, 3), "float32")
>>> bool(np.allclose(ours.compute(v), keras_net(v)))
True
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw

__all__ = ["WeightsError", "from_keras", "load_weights"]

#: a Keras weight name -> the names the same weight has in tensorweave's layers
ALIASES = {"kernel": ("kernel", "weights"), "depthwise_kernel": ("kernel",)}


class WeightsError(tw.TensorweaveError, ValueError):
    """Keras weights that do not fit a module (missing, extra or misshapen layers)."""


def _keras_layers(model: Any) -> Iterator[Any]:
    """Every layer of ``model`` holding weights, nested models opened, in order."""
    for sub in model.layers:
        if hasattr(sub, "layers") and sub.weights:  # a nested Sequential/Functional
            yield from _keras_layers(sub)
        elif sub.weights:
            yield sub


def _our_layers(module: tw.Module) -> Iterator[tw.Layer]:
    """Every layer of ``module`` that owns variables, nested modules opened, in order; a
    layer that shares another's state (``reuse_with``) is listed once."""
    seen: set[int] = set()

    def walk(mod: tw.Module) -> Iterator[tw.Layer]:
        for node in mod.inner_graph.nodes:
            if isinstance(node, tw.Module):
                yield from walk(node)
            elif node.variables and id(node.state) not in seen:
                seen.add(id(node.state))
                yield node

    yield from walk(module)


def _leaf(name: str) -> str:
    """``"resnet50/conv1_conv"`` -> ``"conv1_conv"``; ``"linear/weights:0"`` -> ``"weights"``."""
    return name.rsplit("/", 1)[-1].split(":", 1)[0]


def _fits(ours: tuple[int, ...], theirs: tuple[int, ...]) -> bool:
    """The same shape, or the same one up to axes of size one."""
    squeeze = lambda s: tuple(d for d in s if d != 1)  # noqa: E731
    return ours == theirs or squeeze(ours) == squeeze(theirs)


def _pair_weights(keras_layer: Any, node: tw.Layer) -> list[tuple[tf.Variable, np.ndarray]] | str:
    """The (variable, value) pairs of one layer, or why they do not pair."""
    theirs = list(keras_layer.weights)
    ours = list(node.variables)
    if len(theirs) != len(ours):
        return f"{len(theirs)} Keras weights for {len(ours)} variables"
    if len(ours) == 1:
        matched = [(ours[0], theirs[0])]
    else:
        free = {_leaf(v.name): v for v in ours}
        matched = []
        for w in theirs:
            leaf = _leaf(w.name)
            found = next((n for n in (leaf, *ALIASES.get(leaf, ())) if n in free), None)
            if found is None:
                return f"no variable for the Keras weight {leaf!r} (variables: {sorted(free)})"
            matched.append((free.pop(found), w))
    pairs = []
    for var, w in matched:
        value = np.asarray(w.numpy() if hasattr(w, "numpy") else w)
        shape = tuple(var.shape.as_list())
        if not _fits(shape, value.shape):
            return f"the Keras weight {_leaf(w.name)!r} is {value.shape}, {var.name} is {shape}"
        pairs.append((var, value.reshape(shape).astype(var.dtype.as_numpy_dtype)))
    return pairs


def from_keras(keras_model: Any, module: tw.Module) -> tw.Module:
    """Copy the weights of ``keras_model`` into ``module``'s variables; returns ``module``.

    Layers pair by name (a Keras name may carry the Keras model's name first:
    ``convnext_tiny_stem_conv`` pairs with ``stem_conv``), then the automatically named ones
    in order. Raises ``WeightsError``, assigning nothing, when a layer has no partner or a
    weight does not fit.
    """
    if not isinstance(module, tw.Module):
        raise tw.ArgumentError(
            f"from_keras: module must be a tw.Module (what a models builder returns), got "
            f"{type(module).__name__}."
        )
    prefix = f"{getattr(keras_model, 'name', '')}_"
    ours = list(_our_layers(module))
    by_leaf = {_leaf(n.name): n for n in ours}
    pairs: list[tuple[tf.Variable, np.ndarray]] = []
    problems: list[str] = []
    unnamed: list[Any] = []
    for kl in _keras_layers(keras_model):
        leaf = kl.name[len(prefix) :] if kl.name.startswith(prefix) else kl.name
        node = by_leaf.pop(leaf, None) or by_leaf.pop(kl.name, None)
        if node is None:
            unnamed.append(kl)
            continue
        found = _pair_weights(kl, node)
        if isinstance(found, str):
            problems.append(f"{kl.name} -> {node.name}: {found}")
        else:
            pairs.extend(found)
    rest = [n for n in ours if _leaf(n.name) in by_leaf]
    for kl, node in zip(unnamed, rest, strict=False):
        found = _pair_weights(kl, node)
        if isinstance(found, str):
            problems.append(f"{kl.name} (paired in order) -> {node.name}: {found}")
        else:
            pairs.extend(found)
    if len(unnamed) > len(rest):
        problems.append(f"Keras layers with no partner: {[k.name for k in unnamed[len(rest) :]]}")
    if len(rest) > len(unnamed):
        problems.append(f"layers that got no weights: {[n.name for n in rest[len(unnamed) :]]}")
    if problems:
        raise WeightsError(
            f"from_keras: the weights of Keras model {getattr(keras_model, 'name', '?')!r} do "
            f"not fit module {module.name!r}:\n  " + "\n  ".join(problems) + "\n  Fix: build "
            "the module with the options the Keras model was built with (include_top, "
            "classes, pooling, input channels), or name its layers as the Keras model's."
        )
    for var, value in pairs:
        var.assign(value)
    return module


def load_weights(
    module: tw.Module,
    path: str | os.PathLike[str],
    *,
    keras_counterpart: Callable[[], Any] | None = None,
    who: str = "load_weights",
) -> tw.Module:
    """Load a local Keras ``.keras``/``.h5`` file into ``module`` (see ``from_keras``).

    ``keras_counterpart`` builds the Keras model the file's weights belong to (a builder's
    Keras application, with ``weights=None``): the file may then hold weights only, as
    Keras's own downloads do. Without one the file must hold a whole Keras model.
    """
    import keras

    where = os.fspath(path)
    if not os.path.isfile(where):
        raise tw.ArgumentError(
            f"{who}: weights file {where!r} does not exist. Fix: give the path of a local "
            ".keras or .h5 file (nothing is downloaded)."
        )
    if not where.endswith((".keras", ".h5", ".hdf5")):
        raise tw.ArgumentError(
            f"{who}: weights must be a .keras or .h5 file, got {where!r}. Fix: save the Keras "
            "model with model.save('model.keras')."
        )
    try:
        if keras_counterpart is not None:
            keras_model = keras_counterpart()
            keras_model.load_weights(where)
        else:
            keras_model = keras.saving.load_model(where, compile=False)
    except Exception as err:
        raise WeightsError(
            f"{who}: cannot read Keras weights from {where!r}: {type(err).__name__}: {err}\n  "
            "Fix: give a file Keras saved for this architecture (model.save or "
            "model.save_weights), built with the same options."
        ) from err
    return from_keras(keras_model, module)
