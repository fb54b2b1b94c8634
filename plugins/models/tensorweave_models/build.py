"""What every builder of this pack shares.

- ``layer("Conv2D.v1")``: the layers pack's components by registered (qualified) name, so
  a second pack offering ``Conv2D.v1`` never makes a builder ambiguous; ``rnn_layer`` the
  same for tensorweave-rnn.
- ``input_layer``: a builder's input is a ``tw.Layer`` or one example's shape (Keras's
  ``input_shape``), for which a fresh ``tw.Input`` is made.
- ``Scope``: the names of a builder's layers, ``"<module>/<leaf>"`` where the leaf is the
  Keras application's layer name (``conv1_conv``), so ``from_keras`` pairs the weights.
- ``finish``: the ``tw.Module`` of the built graph, with Keras weights loaded when asked.
- option checks (``pooling``, ``width``) with the message every builder gives.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

import tensorweave as tw

__all__ = [
    "POOLINGS",
    "Scope",
    "scope",
    "layer",
    "rnn_layer",
    "input_layer",
    "reshape",
    "finish",
    "check_pooling",
    "check_width",
    "check_rate",
    "scaled",
]

M = TypeVar("M", bound=tw.Module)
LAYERS = "tensorweave-layers"
RNN = "tensorweave-rnn"
#: ``pooling=`` of the image builders when ``include_top=False`` (Keras's values)
POOLINGS = (None, "avg", "max")


def layer(name: str) -> Any:
    """The layers pack's component ``name`` (``"Conv2D.v1"``)."""
    return tw.layers[f"{LAYERS}:{name}"]


def rnn_layer(name: str) -> Any:
    """The rnn pack's layer ``name`` (``"RNN.v1"``)."""
    return tw.layers[f"{RNN}:{name}"]


class Scope:
    """Names the layers of one builder: ``scope("conv1_conv")`` is ``"resnet18/conv1_conv"``."""

    def __init__(self, prefix: str, who: str) -> None:
        self.prefix = prefix
        self.who = who  # the builder and its module, for messages: "ResNet18 'resnet18'"

    def __call__(self, leaf: str) -> str:
        return f"{self.prefix}/{leaf}"


@contextlib.contextmanager
def scope(builder: str, name: str | None, default: str) -> Iterator[Scope]:
    """Open the name scope of one module (``name``, else ``default``, made unique)."""
    if name is not None and (not isinstance(name, str) or not name):
        raise tw.ArgumentError(f"{builder}: name must be a non-empty string, got {name!r}.")
    with tw.name_scope(name or default) as names:
        yield Scope(names.prefix, f"{builder} {names.prefix!r}")


def input_layer(
    x: tw.Layer | Sequence[int | None],
    who: str,
    *,
    rank: int,
    what: str,
    dtype: str = "float32",
) -> tw.Layer:
    """``x`` when it is a layer of ``rank`` dimensions (batch included), else a new
    ``tw.Input`` whose one example has the shape ``x`` (``rank - 1`` sizes).

    ``what`` describes the expected input (``"images [batch, height, width, channels]"``).
    """
    if isinstance(x, tw.Layer):
        if len(x.shape) != rank:
            raise tw.ShapeError(
                f"{who} expects {what}, got {x.name!r} with shape {x.shape} (rank "
                f"{len(x.shape)}). Fix: reshape the input, or give one example's shape."
            )
        return x
    if isinstance(x, (str, bytes)) or not isinstance(x, Sequence):
        raise tw.ArgumentError(
            f"{who}: the input must be a tw.Layer or one example's shape (a tuple of "
            f"{rank - 1} sizes), got {x!r}. Fix: pass tw.Input(...) or e.g. (32, 32, 3)."
        )
    dims = tuple(tw.dimension(d, f"shape[{i}]", who) for i, d in enumerate(x))
    if len(dims) != rank - 1:
        raise tw.ShapeError(
            f"{who} expects {what}: one example's shape has {rank - 1} sizes, got {dims}. "
            "Fix: give the shape without the batch dimension, e.g. (32, 32, 3)."
        )
    return tw.Input(batch_shape=(None, *dims), dtype=dtype)


def reshape(x: tw.Layer, example: Sequence[int], name: str) -> tw.Layer:
    """``x`` reshaped so that one example has the shape ``example``."""
    return layer("Reshape.v1")(x, tuple(example), name=name)


def finish(
    inputs: tw.Layer | Sequence[tw.Layer],
    output: tw.Layer,
    names: Scope,
    *,
    weights: str | None = None,
    keras_counterpart: Callable[[], Any] | None = None,
    cls: type[M] = tw.Module,
) -> M:
    """The module (of class ``cls``) from ``inputs`` to ``output``; with ``weights`` (a
    local ``.keras`` or ``.h5`` file) the Keras weights are loaded into it (see
    ``keras_weights``)."""
    module = cls(inputs, output, name=names.prefix)
    if weights is not None:
        from tensorweave_models.keras_weights import load_weights

        load_weights(module, weights, keras_counterpart=keras_counterpart, who=names.who)
    return module


def check_pooling(pooling: str | None, who: str) -> str | None:
    """``pooling`` when it is one of ``POOLINGS``."""
    if pooling not in POOLINGS:
        raise tw.ArgumentError(
            f"{who}: pooling must be None, 'avg' or 'max', got {pooling!r}. Fix: 'avg' "
            "averages the last feature map over its positions, 'max' takes its maximum, None "
            "returns it whole."
        )
    return pooling


def check_width(width: object, who: str, arg: str = "width") -> float:
    """A positive multiplier of every layer's filters (``1.0``: the published network)."""
    if isinstance(width, bool) or not isinstance(width, (int, float)) or not width > 0:
        raise tw.ArgumentError(
            f"{who}: {arg} must be a positive number (a multiplier of the filters, 1.0 for "
            f"the published network), got {width!r}."
        )
    return float(width)


def check_rate(rate: object, who: str, arg: str) -> float:
    """A dropout rate in ``[0, 1)``."""
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate < 1:
        raise tw.ArgumentError(f"{who}: {arg} must be in [0, 1), got {rate!r}.")
    return float(rate)


def scaled(filters: int, width: float) -> int:
    """``filters`` times ``width``, rounded, at least 1."""
    return max(1, round(filters * width))
