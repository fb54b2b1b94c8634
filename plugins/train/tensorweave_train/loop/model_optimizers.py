"""``ModelOptimizers``: a ``Model``'s variables and the optimizers that update them.

The part of ``Model`` that keeps its optimizers (one, or several by name, each updating its
share of the variables: ``trains=``, ``loop.objectives``), their loss scales under
``mixed_float16`` (``loop.loss_scale``) and their learning rates, and applies gradients
with them (``optimize``, what ``train_step`` does for each optimizer, for a step of your own
too). ``Model`` inherits it; the methods are documented as the model's.

>>> import tensorflow as tf, tensorweave as tw
>>> from tensorweave_train import SGD
>>> from tensorweave_train.loop.model import Model
>>> x = tw.Input(n_units=1, name="x")
>>> w = tf.Variable([[1.0]])
>>> y = tw.Lambda(lambda a: a @ w, x, variables=[w], name="y")
>>> loss = tw.Lambda(lambda a: tf.reduce_mean(a**2), y, name="l2")
>>> m = Model(inputs=x, outputs=y, loss=loss, optimizer=SGD(0.5))
>>> isinstance(m, ModelOptimizers), m.variables_of("optimizer") == (w,), m.learning_rates()
(True, True, {'learning_rate': 0.5})
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_train.loop.loss_scale import LossScale
from tensorweave_train.loop.metrics import figure
from tensorweave_train.loop.objectives import Objectives, Owned, resolve_optimizers
from tensorweave_train.optimizers import Optimizer

__all__ = ["ModelOptimizers"]


class ModelOptimizers:
    """The variables of a ``Model``, its optimizers, their loss scales and learning rates."""

    if TYPE_CHECKING:  # set by Model.__init__
        name: str
        precision: tw.Precision
        strategy: tf.distribute.Strategy
        layers: list[tw.Layer]
        loss_graph: tw.Graph | None
        objectives: Objectives
        optimizer: Optimizer
        loss_scale: LossScale | None

    def _init_optimizers(
        self,
        optimizer: Optimizer | str | Mapping[str, Optimizer | str] | None,
        loss: tw.Layer | Mapping[str, tw.Layer] | None,
        loss_weights: Mapping[str, float] | None,
        trains: Mapping[str, Owned] | None,
    ) -> None:
        """Make the optimizers (in the strategy's scope), the objectives (which losses each
        minimises, which variables each updates) and, under ``mixed_float16``, the loss
        scales: the optimizer part of ``Model.__init__``."""
        owner = f"Model {self.name!r}"
        with self.strategy.scope():
            optimizers = resolve_optimizers(optimizer, owner)
        self.objectives = Objectives(owner, loss, loss_weights, list(optimizers), trains)
        scaling = self.precision.loss_scaling
        self.loss_scale = LossScale() if scaling and not isinstance(optimizer, Mapping) else None
        if isinstance(optimizer, Mapping):
            self._optimizers = optimizers  # tracked by name: checkpoints hold each
            if scaling:  # each optimizer its own scale, as Keras's LossScaleOptimizer
                self._loss_scales = {k: LossScale(name=f"{k}_loss_scale") for k in optimizers}
        else:
            self.optimizer = optimizers["optimizer"]

    # -- the variables --------------------------------------------------------------------
    @property
    def variables(self) -> tuple[tf.Variable, ...]:
        """Every variable of every layer of the model."""
        out: dict[int, tf.Variable] = {}
        for layer in self.layers:
            for v in layer.variables:
                out.setdefault(id(v), v)
        return tuple(out.values())

    @property
    def trainable_variables(self) -> tuple[tf.Variable, ...]:
        """The variables the losses depend on, less frozen ones (what training updates)."""
        if self.loss_graph is None:
            return ()
        return self.loss_graph.trainable_variables

    # -- the optimizers -------------------------------------------------------------------
    @property
    def optimizers(self) -> dict[str, Optimizer]:
        """Every optimizer by name (``{"optimizer": ...}`` for a model given one)."""
        several: dict[str, Optimizer] | None = self.__dict__.get("_optimizers")
        return dict(several) if several is not None else {"optimizer": self.optimizer}

    def __getattr__(self, name: str) -> Any:
        several = self.__dict__.get("_optimizers")
        if name == "optimizer" and several is not None:
            if len(several) == 1:
                return next(iter(several.values()))
            raise AttributeError(
                f"Model {self.name!r} has several optimizers ({', '.join(several)}). Fix: "
                f"model.optimizers[{next(iter(several))!r}]."
            )
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def variables_of(self, optimizer: str) -> tuple[tf.Variable, ...]:
        """The trainable variables the optimizer ``optimizer`` updates (``trains``), for a
        ``train_step`` of your own: ``tape.gradient(loss, self.variables_of("generator"))``.
        """
        shares = self.objectives.shares(self.trainable_variables)
        if optimizer not in shares:
            raise tw.ArgumentError(
                f"Model {self.name!r} has no optimizer {optimizer!r}; it has {', '.join(shares)}."
            )
        return shares[optimizer]

    def learning_rates(self) -> dict[str, float]:
        """The learning rate each optimizer uses now: ``{"learning_rate": ...}`` for one,
        ``{"<name>_learning_rate": ...}`` for several (the figures the loop reports)."""
        several = "_optimizers" in self.__dict__
        return {
            f"{name}_learning_rate" if several else "learning_rate": figure(
                opt.current_learning_rate()
            )
            for name, opt in self.optimizers.items()
        }

    # -- applying gradients ---------------------------------------------------------------
    def optimize(
        self,
        tape: tf.GradientTape,
        loss: tf.Tensor,
        variables: Sequence[tf.Variable],
        optimizer: Optimizer | str | None = None,
    ) -> None:
        """Apply the gradients of ``loss`` (recorded on ``tape``) to ``variables`` with
        ``optimizer`` (one of ``self.optimizers`` or its name; default the one optimizer):
        what ``train_step`` does for each optimizer after the losses, for a step of your own
        too. Under ``mixed_float16`` the gradients are taken of the loss times that
        optimizer's own loss scale (``loss_scales``), unscaled, and its step is skipped when
        one is not finite (``loop.loss_scale``)."""
        name, chosen = self._optimizer_named(optimizer)
        scale = self.loss_scales.get(name)
        if scale is not None:
            scale.apply(tape, loss, variables, chosen)
            return
        chosen.apply_gradients(zip(tape.gradient(loss, variables), variables))

    @property
    def loss_scales(self) -> dict[str, LossScale]:
        """Each optimizer's dynamic loss scale by name under ``mixed_float16`` (``{}``
        otherwise; ``{"optimizer": ...}`` for a model given one: ``loss_scale``)."""
        several: dict[str, LossScale] | None = self.__dict__.get("_loss_scales")
        if several is not None:
            return dict(several)
        return {} if self.loss_scale is None else {"optimizer": self.loss_scale}

    def _optimizer_named(self, optimizer: Optimizer | str | None) -> tuple[str, Optimizer]:
        every = self.optimizers
        if optimizer is None:
            optimizer = self.optimizer
        if isinstance(optimizer, str):
            if optimizer not in every:
                raise tw.ArgumentError(
                    f"Model {self.name!r} has no optimizer {optimizer!r}; it has "
                    f"{', '.join(every)}. Fix: name one of them."
                )
            return optimizer, every[optimizer]
        for name, known in every.items():
            if known is optimizer:
                return name, known
        if self.precision.loss_scaling:
            raise tw.ArgumentError(
                f"Model {self.name!r}: optimize got an optimizer that is not one of the "
                f"model's ({', '.join(every)}), so it has no loss scale under mixed_float16. "
                "Fix: pass one of model.optimizers (or its name)."
            )
        return "", optimizer
