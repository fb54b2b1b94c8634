"""``with_options``: the same graph with a per-use option set on every layer that takes it.

A layer's per-use options (``training=`` of Dropout, BatchNorm, DropConnect, attention and
recurrent cells) are chosen when a node is made; ``layer.reuse_with(x, training=False)``
makes another node that shares the variables. ``with_options(outputs, training=False)``
does that through a whole graph, as TensorX's per-use ``reuse_with`` applied node by node:

- a node whose ``reuse_with`` (or constructor, for the default ``reuse_with``) takes the
  option is rebuilt with ``reuse_with(*new_inputs, option=value)``, sharing its state;
  a ``Module``, or a composite layer whose ``reuse_with(x, **options)`` forwards options to
  the layers kept in its state (``SeqMap``), takes it when any layer inside does;
- any other node is rebuilt with ``reuse_with(*new_inputs)`` only when one of its inputs
  was rebuilt; otherwise it is kept as it is (the very same object);
- ``Input`` layers and nodes without inputs (constants, parameters) are always kept.

So the result shares every variable with the original graph, a graph that already has the
option (an explicit inference branch) comes back unchanged, and nothing is copied that
does not need to be. This is how a training graph gives its inference graph: Dropout
becomes the identity, BatchNorm uses its moving statistics.

>>> import tensorflow as tf, tensorweave as tw
>>> class Noise(tw.Layer):
...     def __init__(self, x, *, training=True, name=None, share_state_with=None):
...         self.training = training
...         super().__init__(x, shape=x.shape, name=name, share_state_with=share_state_with)
...     def compute(self, x):
...         return x + 1.0 if self.training else x
>>> x = tw.Input(n_units=2, name="x")
>>> y = tw.Lambda(tf.square, Noise(x))
>>> infer = tw.with_options(y, training=False)
>>> y([[1.0, 2.0]]).numpy().tolist(), infer([[1.0, 2.0]]).numpy().tolist()
([[4.0, 9.0]], [[1.0, 4.0]])
>>> infer is not y and infer.shares_state_with(y), tw.with_options(infer, training=False) is infer
(True, True)
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from typing import Any, overload

from tensorweave.errors import GraphError
from tensorweave.graph.graph import Graph
from tensorweave.graph.layer import Layer
from tensorweave.graph.module import Module

__all__ = ["with_options", "takes_option"]

_MISSING = object()


def takes_option(layer: Layer, option: str) -> bool:
    """Whether ``layer.reuse_with`` accepts the per-use ``option`` (e.g. ``"training"``).

    True when ``reuse_with`` names it, or passes its keywords to a constructor that names
    it; for a ``Module``, and for a composite layer whose own ``reuse_with(x, **options)``
    hands options to the layers kept in its state (``SeqMap``), when a layer inside takes it.

    >>> import tensorweave as tw
    >>> takes_option(tw.Input(n_units=1), "training")
    False
    """
    if isinstance(layer, Module):
        return any(takes_option(n, option) for n in layer.inner_graph.nodes)
    if _names(layer, option):
        return True
    if _forwards(layer):
        return any(takes_option(n, option) for n in _inner(layer))
    return False


def _params(fn: Any) -> Any:
    try:
        return inspect.signature(fn).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        return {}


def _forwards(layer: Layer) -> bool:
    """A ``reuse_with(..., **options)`` of the layer's own (not the default one)."""
    method = type(layer).reuse_with
    return method is not Layer.reuse_with and any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in _params(method).values()
    )


def _names(layer: Layer, option: str) -> bool:
    """Whether ``reuse_with`` (or, behind ``**options``, the constructor) names ``option``."""
    params = _params(type(layer).reuse_with)
    named = params.get(option)
    if named is not None and named.kind is not inspect.Parameter.VAR_POSITIONAL:
        return True
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        found = _params(type(layer).__init__).get(option)
        return found is not None and found.kind is not inspect.Parameter.VAR_POSITIONAL
    return False


def _inner(layer: Layer) -> list[Layer]:
    """The layers inside a composite layer (a module's graph, or layers in its state)."""
    if isinstance(layer, Module):
        return list(layer.inner_graph.nodes)
    return [m for m in layer.state.submodules if isinstance(m, Layer)]


def _has(node: Layer, options: dict[str, Any]) -> bool:
    """Whether ``node`` already has ``options``: its attributes of those names, or for a
    module every layer inside that takes them has them. (Another composite layer cannot
    tell: its state holds the layers it was first built with, so it is rebuilt.)"""
    if isinstance(node, Module):
        return all(
            _has(n, {k: v for k, v in options.items() if takes_option(n, k)})
            for n in node.inner_graph.nodes
            if any(takes_option(n, k) for k in options)
        )
    if all(_names(node, k) for k in options):
        return all(getattr(node, k, _MISSING) == v for k, v in options.items())
    return False


@overload
def with_options(outputs: Layer, **options: Any) -> Layer: ...


@overload
def with_options(outputs: Iterable[Layer], **options: Any) -> list[Layer]: ...


def with_options(outputs: Layer | Iterable[Layer], **options: Any) -> Layer | list[Layer]:
    """The graph ending in ``outputs`` with ``options`` set on every layer that takes them.

    Args:
        outputs: one layer, or several (rebuilt together, so shared upstream nodes stay
            shared).
        **options: per-use options, e.g. ``training=False``.

    Returns:
        The rebuilt output layer (or a list, in the order given). Every rebuilt node shares
        the state (variables) of the node it replaces. A node that takes the options and
        already has them (a public attribute of that name with that value) and whose
        inputs are unchanged is kept.

    Raises:
        GraphError: a node that had to be rebuilt could not be (its ``reuse_with`` failed);
            the message names the node and its class.
    """
    single = isinstance(outputs, Layer)
    outs = [outputs] if isinstance(outputs, Layer) else list(outputs)
    if not options:
        return outs[0] if single else outs
    graph = Graph.build(inputs=None, outputs=outs)
    mapped: dict[int, Layer] = {}
    for node in graph.nodes:
        if not node.inputs:
            mapped[id(node)] = node
            continue
        new_inputs = [mapped[id(i)] for i in node.inputs]
        changed = any(a is not b for a, b in zip(new_inputs, node.inputs, strict=True))
        taken = {k: v for k, v in options.items() if takes_option(node, k)}
        if taken and _has(node, taken):
            taken = {}
        if not taken and not changed:
            mapped[id(node)] = node
            continue
        try:
            mapped[id(node)] = node.reuse_with(*new_inputs, **taken)
        except Exception as err:
            raise GraphError(
                f"with_options({', '.join(f'{k}={v!r}' for k, v in options.items())}): cannot "
                f"rebuild {type(node).__name__} {node.name!r} "
                f"(from {type(node).__module__}) on its new inputs: {err}\n  Fix: give "
                f"{type(node).__name__} a reuse_with(*inputs, **options) that accepts "
                f"{sorted(taken) or 'new inputs'}."
            ) from err
    result = [mapped[id(o)] for o in outs]
    return result[0] if single else result
