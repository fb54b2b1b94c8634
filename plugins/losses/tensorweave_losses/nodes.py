"""Losses, metrics and distances as graph nodes: a function decorated with
:func:`graph_function` computes on tensors, but called with any ``tw.Layer`` argument it
returns a :class:`LossLayer` instead, a graph node whose inputs are those layers (other
arguments are bound as constants). So a training graph can end in its loss node, and
``node.function`` is the plain function it applies.

>>> import tensorweave as tw
>>> from tensorweave_losses.losses.regression import mse
>>> float(mse([[1.0, 2.0]], [[1.0, 4.0]]))
2.0
>>> y, p = tw.Input(n_units=2, name="y"), tw.Input(n_units=2, name="p")
>>> node = mse(y, p)
>>> node.shape, node.function is mse.function
((), True)
>>> float(node([[1.0, 2.0]], [[1.0, 4.0]]))
2.0
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any, Protocol, cast

import tensorflow as tf

import tensorweave as tw
from tensorweave_losses.base import ProbabilitiesAsLogitsWarning
from tensorweave_losses.streaming.states import node_metric

__all__ = [
    "LossLayer",
    "GraphFunction",
    "graph_function",
    "padding_aware",
    "warn_probabilities_node",
]


class LossLayer(tw.Lifted):
    """A loss, metric or distance applied in a graph.

    Built by calling a registered loss with layers (``tw.losses["mse.v1"](labels, preds)``),
    through ``tw.lift``; rarely directly. ``tf.Variable`` arguments (NCE and sampled-softmax
    output weights) are kept in this node's state, so they train and checkpoint with the
    graph. ``reuse_with`` applies the same loss to other layers (``reduction="none"``
    overrides an option).

    Attributes:
        function: the plain tensor function this node applies.
        options: the non-layer arguments it was called with.
    """

    # losses and metrics are numerically sensitive: float32 under mixed precision
    compute_precision = "float32"

    def streaming(self) -> Any:
        """A fresh streaming state of this metric node (``update(*input tensors)``,
        ``result()``, ``reset()``), so a figure over many batches equals the metric on all
        of them at once; ``None`` when the function has none (a loss: a mean over examples).
        """
        shapes = [layer.shape for layer in self.inputs]
        return node_metric(self.function, self.call_args, self.call_kwargs, shapes)


class GraphFunction(Protocol):
    """What ``graph_function`` returns: callable, with the plain function as ``.function``."""

    function: Callable[..., Any]

    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...


def graph_function(fn: Callable[..., Any]) -> GraphFunction:
    """Make ``fn`` dual-use: on tensors it computes, with any layer argument it builds a node.

    In layer mode ``name=`` names the node. The wrapper exposes the plain function as
    ``.function``.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, name: str | None = None, **kwargs: Any) -> Any:
        if not any(isinstance(a, tw.Layer) for a in (*args, *kwargs.values())):
            return fn(*args, **kwargs)
        node = tw.lift(fn, *args, name=name, node=LossLayer, **kwargs)
        warn_probabilities_node(fn.__name__, args, kwargs)
        return node

    dual = cast(GraphFunction, tf.autograph.experimental.do_not_convert(wrapper))
    dual.function = fn
    return dual


_PROBABILITIES = ("softmax", "sigmoid", "softmax_v2", "log_softmax")


def _probabilities_by(layer: Any) -> str | None:
    """The activation a graph node ends in when it makes probabilities (``softmax``,
    ``sigmoid``), read from its construction (``activation=`` of a layer, a ``Softmax``
    layer, a lifted ``tf.nn.softmax``); ``None`` otherwise."""
    if not isinstance(layer, tw.Layer):
        return None
    if type(layer).__name__ in ("Softmax", "Sigmoid"):
        return type(layer).__name__.lower()
    fn = getattr(layer, "function", None) or getattr(layer, "fn", None)
    name = getattr(fn, "__name__", None)
    if name in _PROBABILITIES:
        return str(name).replace("_v2", "")
    init = getattr(layer, "_tw_init_args", None)
    options = init[1] if isinstance(init, tuple) and len(init) == 2 else {}
    activation = options.get("activation") if isinstance(options, dict) else None
    if callable(activation):
        activation = getattr(activation, "__name__", None)
    if isinstance(activation, str) and activation.replace("_v2", "") in _PROBABILITIES:
        return activation.replace("_v2", "")
    return None


def warn_probabilities_node(loss: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Warn (``ProbabilitiesAsLogitsWarning``, a Python warning, once per loss node) when a
    loss given ``from_logits=True`` reads its predictions from a node that ends in a
    softmax or a sigmoid: the loss would apply it a second time, silently, in every
    compiled step (the eager check of the values never runs there)."""
    if kwargs.get("from_logits") is not True:
        return
    predictions = kwargs.get("predictions", args[1] if len(args) > 1 else None)
    found = _probabilities_by(predictions)
    if found is None or not isinstance(predictions, tw.Layer):
        return
    warnings.warn(
        f"{loss}: from_logits=True, but its predictions {predictions.name!r} end in a "
        f"{found} (probabilities): the loss would apply softmax to them again and train "
        f"badly. Fix: from_logits=False, or drop the {found} from {predictions.name!r} and "
        "keep from_logits=True (the numerically stable path).",
        ProbabilitiesAsLogitsWarning,
        stacklevel=4,
    )


def padding_aware(loss: GraphFunction) -> GraphFunction:
    """``loss(ids, logits, ...)`` that, given neither ``mask=`` nor ``lengths=``, takes the
    logits layer's ``padding_mask`` as the mask (an explicit one always wins)."""

    @functools.wraps(loss)
    def wrapper(ids: Any, logits: Any, *args: Any, **kwargs: Any) -> Any:
        given = kwargs.get("mask") is not None or kwargs.get("lengths") is not None
        if not given and isinstance(logits, tw.Layer) and logits.padding_mask is not None:
            kwargs["mask"] = logits.padding_mask
        return loss(ids, logits, *args, **kwargs)

    dual: GraphFunction = tf.autograph.experimental.do_not_convert(wrapper)
    dual.function = loss.function
    return dual
