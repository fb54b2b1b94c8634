"""What training minimises, and which optimizer updates which variables: ``Objectives``.

A ``Model`` takes one loss (a scalar layer) or several named ones with weights, as Keras's
``compile(loss={...}, loss_weights={...})``, and one optimizer or several by name, each
owning a share of the variables (``trains={name: layers, a module or variables}``):

- the loss a model minimises is the weighted sum of its named losses, plus
  ``tw.regularization_loss`` of the layers the losses use when some have regularizers
  (``w_regularizer="l2"``): a model needs nothing else for them;
- each optimizer updates the variables ``trains`` gives it; one optimizer may be left out of
  ``trains``, and it updates the rest (a single optimizer updates everything); frozen
  variables (``Layer.freeze``) are no optimizer's;
- when the losses and the optimizers have the same names (a GAN's ``generator`` and
  ``discriminator``), each optimizer minimises the loss of its name (plus the
  regularization); otherwise every optimizer minimises the total loss.

The default step (``Model.train_step``) computes every loss in one pass and applies every
optimizer after it (as the TensorFlow DCGAN tutorial does); updates in turn (a GAN's
``d_steps``) are a ``train_step`` of your own, or ``tensorweave_train.GAN``. The figures
reported for training and evaluation are ``loss`` (the total) and, per named loss,
``<name>_loss``; training also reports ``regularization_loss`` when there is one.

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(n_units=1, name="x")
>>> a, b = tw.ops.reduce_mean(x), tw.ops.reduce_sum(x)
>>> o = Objectives("Model 'm'", {"a": a, "b": b}, {"b": 0.5}, ["optimizer"], None)
>>> o.weights, o.paired, o.figure_names(regularized=True)
({'a': 1.0, 'b': 0.5}, False, ['a_loss', 'b_loss', 'regularization_loss'])
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias

import tensorflow as tf

import tensorweave as tw

__all__ = [
    "Objectives",
    "Owned",
    "RESERVED",
    "has_regularizers",
    "check_scalar",
    "resolve_optimizers",
]

#: what an optimizer may own: a layer (or module), a variable, or a list of them
Owned: TypeAlias = tw.Layer | tf.Variable | Sequence[tw.Layer | tf.Variable]
#: names a loss cannot take: they name the total and the regularization figures
RESERVED = ("loss", "regularization")


def check_scalar(layer: Any, what: str) -> None:
    """Refuse anything but a scalar layer as a loss or metric of a model."""
    if not isinstance(layer, tw.Layer):
        raise TypeError(f"Model: {what} must be a tensorweave Layer, got {type(layer).__name__}.")
    if layer.shape != ():
        raise tw.ShapeError(
            f"Model: {what} {layer.name!r} must produce a scalar, but its shape is "
            f"{layer.shape}. Fix: reduce it, e.g. tw.Lambda(tf.reduce_mean, {layer.name})."
        )


def _optimizer(value: Any, owner: str, option: str) -> Any:
    if isinstance(value, str):
        return tw.resolve("optimizers", value, owner=owner, option=option)()
    if not hasattr(value, "apply_gradients"):
        raise tw.ArgumentError(
            f"{owner}: {option} must be an Optimizer, a registered optimizer name (e.g. "
            f"'Adam.v1') or None, got {value!r} ({type(value).__name__})."
        )
    return value


def resolve_optimizers(optimizer: Any, owner: str) -> dict[str, Any]:
    """The optimizers by name: ``{"optimizer": ...}`` for one (``None``: ``Adam()``), the
    given names for a mapping; a registered name is looked up and made with its defaults.
    Make them inside the model's ``strategy.scope()``."""
    if optimizer is None:
        from tensorweave_train.optimizers import Adam

        return {"optimizer": Adam()}
    if not isinstance(optimizer, Mapping):
        return {"optimizer": _optimizer(optimizer, owner, "optimizer")}
    if not optimizer:
        raise tw.ArgumentError(f"{owner}: optimizer={{}} names no optimizer. Fix: give one.")
    out = {}
    for name, value in optimizer.items():
        if not isinstance(name, str) or not name:
            raise tw.ArgumentError(f"{owner}: optimizer names must be strings, got {name!r}.")
        out[name] = _optimizer(value, owner, f"optimizer[{name!r}]")
    seen: dict[int, str] = {}
    for name, opt in out.items():
        other = seen.setdefault(id(opt), name)
        if other != name:
            raise tw.ArgumentError(
                f"{owner}: optimizer[{other!r}] and optimizer[{name!r}] are the same object "
                "(its step count and slots would be shared). Fix: make one for each."
            )
    return out


def has_regularizers(graph: tw.Graph) -> bool:
    """Whether any layer of ``graph`` (or kept inside one) has a regularized variable."""
    for node in graph.nodes:
        for module in (node.state, *node.state.submodules):
            if isinstance(module, tw.LayerState) and module.regularizers:
                return True
    return False


def _weighted_sum(*values: tf.Tensor, weights: tuple[float, ...]) -> tf.Tensor:
    """``sum(w * v)`` in the dtype of the first value, left to right."""
    dtype = values[0].dtype
    total = tf.cast(values[0], dtype) * tf.constant(weights[0], dtype)
    for value, weight in zip(values[1:], weights[1:], strict=True):
        total = total + tf.cast(value, dtype) * tf.constant(weight, dtype)
    return total


def _close(word: str, choices: Sequence[str]) -> str:
    found = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" Did you mean {found[0]!r}?" if found else ""


class Objectives:
    """The losses of a model and the share of the variables each optimizer updates (see
    the module docstring).

    Args:
        owner: how errors name the model (``"Model 'gan'"``).
        loss: a scalar layer, ``{name: scalar layer}``, or ``None`` (no training).
        loss_weights: ``{name: weight}`` for named losses (default 1 each).
        optimizers: the optimizers' names, in order.
        trains: ``{optimizer name: layers, a module or variables}``.

    Attributes:
        named: the named losses (empty for a single loss).
        weights: their weights.
        total: the loss node the model minimises (the weighted sum of the named losses;
            the regularization is added by the step), or ``None``.
        paired: whether each optimizer minimises the loss of its own name.
    """

    def __init__(
        self,
        owner: str,
        loss: tw.Layer | Mapping[str, tw.Layer] | None,
        loss_weights: Mapping[str, float] | None,
        optimizers: Sequence[str],
        trains: Mapping[str, Owned] | None,
    ) -> None:
        self.owner = owner
        self.optimizers = list(optimizers)
        self.named: dict[str, tw.Layer] = {}
        self.weights: dict[str, float] = {}
        self.total: tw.Layer | None = None
        if isinstance(loss, Mapping):
            self._name_losses(loss, loss_weights)
        else:
            if loss_weights:
                raise tw.ArgumentError(
                    f"{owner}: loss_weights={dict(loss_weights)!r} needs named losses. Fix: "
                    "loss={'a': loss_a, 'b': loss_b}, loss_weights={'b': 0.5}."
                )
            if loss is not None:
                check_scalar(loss, "loss")
            self.total = loss
        self.trains = dict(trains or {})  # as given (a saved config names its layers)
        self.owned = self._check_trains(self.trains)
        names, opts = set(self.named), set(self.optimizers)
        self.paired = len(opts) > 1 and names == opts
        if len(opts) > 1 and names & opts and not self.paired:
            raise tw.ArgumentError(
                f"{owner}: the optimizers {sorted(opts)} and the losses {sorted(names)} share "
                "some names but not all. Fix: name each optimizer after the loss it minimises "
                "(the same names), or give the optimizers other names: each then minimises "
                "the total loss."
            )

    def _name_losses(
        self, loss: Mapping[str, tw.Layer], weights: Mapping[str, float] | None
    ) -> None:
        owner = self.owner
        if not loss:
            raise tw.ArgumentError(f"{owner}: loss={{}} names no loss. Fix: give one or more.")
        for name, node in loss.items():
            if not isinstance(name, str) or not name or name in RESERVED:
                raise tw.ArgumentError(
                    f"{owner}: a loss name must be a non-empty string other than "
                    f"{' and '.join(map(repr, RESERVED))}, got {name!r}."
                )
            check_scalar(node, f"loss {name!r}")
        self.named = dict(loss)
        given = dict(weights or {})
        for name, weight in given.items():
            if name not in self.named:
                raise tw.ArgumentError(
                    f"{owner}: loss_weights names {name!r}, which is not a loss.{_close(name, list(self.named))}"
                    f" Losses: {', '.join(self.named)}."
                )
            number = isinstance(weight, int | float) and not isinstance(weight, bool)
            if not number or not math.isfinite(weight):
                raise tw.ArgumentError(
                    f"{owner}: loss_weights[{name!r}] must be a finite number, got {weight!r}."
                )
        self.weights = {name: float(given.get(name, 1.0)) for name in self.named}
        self.total = tw.lift(
            _weighted_sum, *self.named.values(), weights=tuple(self.weights.values()), name="loss"
        )

    def _check_trains(self, trains: Mapping[str, Owned]) -> dict[str, frozenset[Any]]:
        """Every optimizer's own variables (refs); errors for unknown names, things that
        are neither layers nor variables, a variable two optimizers claim, or several
        optimizers left out."""
        owner = self.owner
        owned: dict[str, frozenset[Any]] = {}
        claimed: dict[Any, str] = {}
        for name, spec in trains.items():
            if name not in self.optimizers:
                raise tw.ArgumentError(
                    f"{owner}: trains names {name!r}, which is not an optimizer."
                    f"{_close(str(name), self.optimizers)} Optimizers: {', '.join(self.optimizers)}."
                )
            items = list(spec) if isinstance(spec, list | tuple) else [spec]
            refs: set[Any] = set()
            for item in items:
                if isinstance(item, tw.Layer):
                    refs.update(v.ref() for v in item.variables)
                elif isinstance(item, tf.Variable):
                    refs.add(item.ref())
                else:
                    raise tw.ArgumentError(
                        f"{owner}: trains[{name!r}] holds a {type(item).__name__}; it takes "
                        "layers, modules and tf.Variables (or a list of them)."
                    )
            for ref in refs:
                other = claimed.setdefault(ref, name)
                if other != name:
                    raise tw.ArgumentError(
                        f"{owner}: variable {ref.deref().name!r} is trained by both {other!r} "
                        f"and {name!r}. Fix: give each variable to one optimizer."
                    )
            owned[name] = frozenset(refs)
        left = [n for n in self.optimizers if n not in owned]
        if len(left) > 1:
            raise tw.ArgumentError(
                f"{owner}: the optimizers {left} do not say what they train. Fix: "
                f"trains={{{', '.join(repr(n) + ': layers' for n in left[1:])}}}: at most one "
                "optimizer may be left out of trains (it trains the rest)."
            )
        self.rest = left[0] if left else None
        return owned

    def check_in_graph(self, variables: Sequence[tf.Variable]) -> None:
        """Raise ``tw.ArgumentError`` when ``trains`` gives an optimizer layers or variables
        that are not the model's (``variables``: every variable of its graphs): that
        optimizer would update nothing of the model (``variables_of`` empty), silently."""
        known = {v.ref() for v in variables}
        for name, refs in self.owned.items():
            given = self.trains[name]
            items = list(given) if isinstance(given, list | tuple) else [given]
            labels = ", ".join(repr(getattr(item, "name", type(item).__name__)) for item in items)
            if not refs:
                raise tw.ArgumentError(
                    f"{self.owner}: trains[{name!r}] ({labels}) holds no variables: optimizer "
                    f"{name!r} would update nothing. Fix: give trains[{name!r}] the layers (or "
                    "the tw.Module) of the model that it trains."
                )
            outside = [r for r in refs if r not in known]
            if outside:
                which = "all" if len(outside) == len(refs) else f"{len(outside)} of {len(refs)}"
                raise tw.ArgumentError(
                    f"{self.owner}: trains[{name!r}] gives {labels}, but {which} of its "
                    f"variables ({outside[0].deref().name!r}...) are outside the model's graph, "
                    f"so optimizer {name!r} would not train them (variables_of({name!r}) would "
                    "miss them). Fix: give trains the layers the model's outputs and losses "
                    "are built from (a layer reused with reuse_with shares its variables), or "
                    "build the model's outputs and losses from those layers."
                )

    def shares(self, trainable: Sequence[tf.Variable]) -> dict[str, tuple[tf.Variable, ...]]:
        """Each optimizer's variables among ``trainable`` (the model's, in that order)."""
        out = {
            name: tuple(v for v in trainable if v.ref() in refs)
            for name, refs in self.owned.items()
        }
        if self.rest is not None:
            taken = frozenset().union(*self.owned.values())
            out[self.rest] = tuple(v for v in trainable if v.ref() not in taken)
        return {name: out[name] for name in self.optimizers}

    def goals(self, losses: Mapping[str, tf.Tensor]) -> dict[str, tf.Tensor]:
        """What each optimizer minimises, from ``compute_losses``'s values: the loss of its
        name plus the regularization when ``paired``, else the total loss."""
        if not self.paired:
            return {name: losses["loss"] for name in self.optimizers}
        regularization = losses.get("regularization")
        out = {}
        for name in self.optimizers:
            goal = losses[name]
            out[name] = goal if regularization is None else goal + regularization
        return out

    def figure_names(self, *, regularized: bool) -> list[str]:
        """The training figures besides ``loss``: ``<name>_loss`` per named loss, and
        ``regularization_loss`` when some layer is regularized."""
        names = [f"{n}_loss" for n in self.named]
        return names + (["regularization_loss"] if regularized else [])
