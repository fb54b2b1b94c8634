"""``Optimization``: the optimizers of a ``Model`` and the variables each updates.

The part of a ``Model`` that keeps its optimizers (one, or several by name, each updating
its share of the variables: ``trains=``, ``loop.objectives``), their loss scales under
``mixed_float16`` (``loop.loss_scale``) and their learning rates, and applies gradients
with them (``optimize``, what ``train_step`` does for each optimizer, for a step of your own
too). A ``Model`` holds one (``model.optimization``, as it holds its ``Steps`` and its
``Runner``) and its ``optimizer``, ``optimizers``, ``objectives``, ``loss_scales``,
``variables_of``, ``learning_rates`` and ``optimize`` call it; it reads the model through
``Optimized``. The model itself keeps the optimizers and loss scales as its tracked
attributes (``optimizer`` or ``_optimizers``, ``loss_scale`` or ``_loss_scales``), so its
checkpoints hold them under those names.

>>> import tensorflow as tf, tensorweave as tw
>>> from tensorweave_train import SGD
>>> from tensorweave_train.loop.model import Model
>>> x = tw.Input(n_units=1, name="x")
>>> w = tf.Variable([[1.0]])
>>> y = tw.Lambda(lambda a: a @ w, x, variables=[w], name="y")
>>> loss = tw.Lambda(lambda a: tf.reduce_mean(a**2), y, name="l2")
>>> m = Model(inputs=x, outputs=y, loss=loss, optimizer=SGD(0.5))
>>> isinstance(m.optimization, Optimization), m.variables_of("optimizer") == (w,)
(True, True)
>>> m.learning_rates()
{'learning_rate': 0.5}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

import tensorflow as tf

import tensorweave as tw
from tensorweave_train.loop.loss_scale import LossScale
from tensorweave_train.loop.metrics import figure
from tensorweave_train.loop.objectives import Objectives, Owned, resolve_optimizers
from tensorweave_train.optimizers import Optimizer

__all__ = ["Optimization", "Optimized"]


class Optimized(Protocol):
    """What ``Optimization`` reads of a ``Model``: its name, precision and strategy (at
    construction) and the variables its losses train (on each ``variables_of``)."""

    @property
    def name(self) -> str: ...

    @property
    def precision(self) -> tw.Precision: ...

    @property
    def strategy(self) -> tf.distribute.Strategy: ...

    @property
    def trainable_variables(self) -> tuple[tf.Variable, ...]: ...


class Optimization:
    """The optimizers of ``model``, their objectives, loss scales and learning rates
    (documented as the model's methods).

    Args:
        model: the ``Model`` (read through ``Optimized``).
        optimizer, loss, loss_weights, trains: as ``Model``'s.

    Attributes:
        objectives: which losses each optimizer minimises, which variables it updates.
        several: whether the model was given several optimizers by name (a mapping).
        loss_scale: the one optimizer's loss scale under ``mixed_float16`` (else None).
    """

    def __init__(
        self,
        model: Optimized,
        optimizer: Optimizer | str | Mapping[str, Optimizer | str] | None,
        loss: tw.Layer | Mapping[str, tw.Layer] | None,
        loss_weights: Mapping[str, float] | None,
        trains: Mapping[str, Owned] | None,
    ) -> None:
        # The optimizers are made in the strategy's scope, then the objectives and, under
        # ``mixed_float16``, the loss scales: one for the one optimizer, each its own for
        # several (as Keras's LossScaleOptimizer).
        self.model = model
        owner = f"Model {model.name!r}"
        with model.strategy.scope():
            self._by_name = resolve_optimizers(optimizer, owner)
        self.objectives = Objectives(owner, loss, loss_weights, list(self._by_name), trains)
        self.several = isinstance(optimizer, Mapping)
        scaling = model.precision.loss_scaling
        self.loss_scale = LossScale() if scaling and not self.several else None
        self._scales: dict[str, LossScale] = {}
        if self.several and scaling:
            self._scales = {k: LossScale(name=f"{k}_loss_scale") for k in self._by_name}

    @property
    def optimizers(self) -> dict[str, Optimizer]:
        """Every optimizer by name (``{"optimizer": ...}`` for a model given one)."""
        return dict(self._by_name)

    @property
    def optimizer(self) -> Optimizer:
        """The one optimizer; an ``AttributeError`` naming them for several."""
        if len(self._by_name) == 1:
            return next(iter(self._by_name.values()))
        raise AttributeError(
            f"Model {self.model.name!r} has several optimizers ({', '.join(self._by_name)}). "
            f"Fix: model.optimizers[{next(iter(self._by_name))!r}]."
        )

    @property
    def loss_scales(self) -> dict[str, LossScale]:
        """Each optimizer's dynamic loss scale by name under ``mixed_float16`` (``{}``
        otherwise; ``{"optimizer": ...}`` for a model given one: ``loss_scale``)."""
        if self.several:
            return dict(self._scales)
        return {} if self.loss_scale is None else {"optimizer": self.loss_scale}

    def variables_of(self, optimizer: str) -> tuple[tf.Variable, ...]:
        """The trainable variables the optimizer ``optimizer`` updates (``trains``)."""
        shares = self.objectives.shares(self.model.trainable_variables)
        if optimizer not in shares:
            raise tw.ArgumentError(
                f"Model {self.model.name!r} has no optimizer {optimizer!r}; it has "
                f"{', '.join(shares)}."
            )
        return shares[optimizer]

    def learning_rates(self) -> dict[str, float]:
        """The learning rate each optimizer uses now: ``{"learning_rate": ...}`` for one,
        ``{"<name>_learning_rate": ...}`` for several (the figures the loop reports)."""
        return {
            f"{name}_learning_rate" if self.several else "learning_rate": figure(
                opt.current_learning_rate()
            )
            for name, opt in self._by_name.items()
        }

    def optimize(
        self,
        tape: tf.GradientTape,
        loss: tf.Tensor,
        variables: Sequence[tf.Variable],
        optimizer: Optimizer | str | None = None,
    ) -> None:
        """Apply the gradients of ``loss`` (recorded on ``tape``) to ``variables`` with
        ``optimizer`` (see ``Model.optimize``)."""
        name, chosen = self.named(optimizer)
        scale = self.loss_scales.get(name)
        if scale is not None:
            scale.apply(tape, loss, variables, chosen)
            return
        chosen.apply_gradients(zip(tape.gradient(loss, variables), variables))

    def named(self, optimizer: Optimizer | str | None) -> tuple[str, Optimizer]:
        """``optimizer`` (one of the optimizers, its name, or None for the one) and its
        name (``""`` for an optimizer not the model's, allowed without loss scaling)."""
        every = self._by_name
        if optimizer is None:
            optimizer = self.optimizer
        if isinstance(optimizer, str):
            if optimizer not in every:
                raise tw.ArgumentError(
                    f"Model {self.model.name!r} has no optimizer {optimizer!r}; it has "
                    f"{', '.join(every)}. Fix: name one of them."
                )
            return optimizer, every[optimizer]
        for name, known in every.items():
            if known is optimizer:
                return name, known
        if self.model.precision.loss_scaling:
            raise tw.ArgumentError(
                f"Model {self.model.name!r}: optimize got an optimizer that is not one of the "
                f"model's ({', '.join(every)}), so it has no loss scale under mixed_float16. "
                "Fix: pass one of model.optimizers (or its name)."
            )
        return "", optimizer
