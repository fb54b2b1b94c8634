"""``Model`` itself: its graphs (inference, training ending in its losses, evaluation), its
variables and optimizers (``optimization``), and the steps' maths a subclass may override
(``compute_losses``, ``train_step``, ``test_step``). What it is used through (train,
evaluate, predict, save, export) is ``loop.model.use.ModelUse``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_train.loop.graphs import ModelGraphs, fed_graph
from tensorweave_train.loop.loss_scale import LossScale
from tensorweave_train.loop.metrics import StepMeans, training_metrics
from tensorweave_train.loop.model.keras import KERAS_METHODS, KerasSpellingError
from tensorweave_train.loop.model.use import ModelUse
from tensorweave_train.loop.model_arguments import (
    loss_by_name,
    named_inputs,
)
from tensorweave_train.loop.model_running import Runner
from tensorweave_train.loop.objectives import Objectives, Owned, check_scalar
from tensorweave_train.loop.optimization import Optimization
from tensorweave_train.loop.steps import Steps, check_steps_per_execution
from tensorweave_train.optimizers import Optimizer

__all__ = ["Model"]


def _layers(value: tw.Layer | Iterable[tw.Layer] | None) -> tuple[tw.Layer, ...]:
    if value is None:
        return ()
    if isinstance(value, tw.Layer):
        return (value,)
    return tuple(value)


class Model(ModelUse, tw.Stateful):
    """Inference, training and evaluation graphs over shared layers.

    Args:
        inputs: the data ``Input`` layers the outputs need (or ``{name: Input}``, as
            Keras's, each key its ``Input``'s name).
        outputs: the layer(s) ``predict`` returns.
        loss: a layer producing the scalar to minimise; may use ``inputs``, ``targets``
            and any layers (often a training-mode copy of the outputs). Or several:
            ``{name: scalar layer}``, each reported as ``<name>_loss`` (``loop.objectives``).
            Or, as Keras's ``compile(loss=...)``, the name of a registered loss (or its Keras
            name: ``"sparse_categorical_crossentropy"``) applied to the target and the output
            (a target ``Input`` named ``"y"`` is made without ``targets=``;
            ``loop.model_arguments.loss_by_name``).
        loss_weights: ``{name: weight}`` of named losses (default 1 each): the model
            minimises their weighted sum (plus the layers' regularization, if any).
        targets: ``Input`` layers holding expected values (fed in training/evaluation).
        metrics: ``{name: scalar layer}`` reported by ``evaluate`` and on validation.
        optimizer: an ``Optimizer`` (default ``Adam()``) or a registered name; or several
            by name, ``{"generator": Adam(2e-4), "discriminator": Adam(2e-4)}``.
        trains: ``{optimizer name: layers, a module or variables}``: what each optimizer
            updates (one optimizer may be left out: it updates the rest).
        strategy: a ``tf.distribute.Strategy``; default the one in scope at construction.
            Build the layers (and this model) inside ``strategy.scope()``.
        jit_compile: compile the steps with XLA.
        steps_per_execution: train steps per compiled call in ``train`` (an int, or
            ``"auto"``: see ``loop.steps``); step events stay exact (``loop.execution``).
        inference_options: the per-use options that turn the graphs ``predict`` and
            ``evaluate`` run into inference graphs (default ``{"training": False}``); ``{}``
            runs the graphs as given.
        precision: ``"mixed_bfloat16"`` trains, evaluates and predicts with the layers in
            bfloat16 and the variables, the loss and the outputs in float32 (``"float32"``
            the default, ``"mixed_float16"`` adds dynamic loss scaling: ``loop.loss_scale``);
            see ``tensorweave.graph.precision``.
    """

    # Saved state: every layer's state, the optimizer's (``_optimizers`` when several, by
    # name) and the epoch's loss figures; the rest is plain Python. Under mixed_float16 the
    # loss scale of each optimizer too (``_loss_scales`` when several, by name). The
    # optimizers and loss scales are ``optimization``'s, tracked here under these names.
    tracked = ("layers", "optimizer", "_optimizers", "loss_figures", "loss_scale", "_loss_scales")
    optimizer: Optimizer  # the one optimizer (several: ``optimizers``)
    loss_scale: LossScale | None  # the one optimizer's, under mixed_float16 (``loss_scales``)

    def __init__(
        self,
        inputs: tw.Layer | Sequence[tw.Layer] | Mapping[str, tw.Layer],
        outputs: tw.Layer | Sequence[tw.Layer],
        *,
        loss: tw.Layer | Mapping[str, tw.Layer] | str | None = None,
        loss_weights: Mapping[str, float] | None = None,
        targets: tw.Layer | Sequence[tw.Layer] | None = None,
        metrics: Mapping[str, tw.Layer] | None = None,
        optimizer: Optimizer | str | Mapping[str, Optimizer | str] | None = None,
        trains: Mapping[str, Owned] | None = None,
        strategy: tf.distribute.Strategy | None = None,
        jit_compile: bool | None = None,
        steps_per_execution: int | str = "auto",
        inference_options: Mapping[str, Any] | None = None,
        precision: str | tw.Precision | None = None,
        name: str = "model",
    ) -> None:
        super().__init__(name=name)
        owner = f"Model {name!r}"
        self.precision = tw.Precision.of(precision, owner=owner)
        self.inputs = _layers(named_inputs(owner, inputs))
        self.outputs = _layers(outputs)
        self.targets = _layers(targets)
        if isinstance(loss, str):  # Keras's compile(loss="...")
            loss, self.targets = loss_by_name(owner, loss, self.outputs, self.targets)
        self.distributed = strategy is not None or tf.distribute.has_strategy()
        self.strategy = strategy or tf.distribute.get_strategy()
        # The optimizers, objectives and loss scales (``optimization``, not tracked); the
        # model tracks the optimizers and loss scales, by the names its checkpoints have
        # always held them under. (Set before ``optimization``: tf.Module skips tracking a
        # value ``getattr`` already returns, and ``__getattr__`` returns its ``optimizer``.)
        optimization = Optimization(self, optimizer, loss, loss_weights, trains)
        if optimization.several:
            self._optimizers = optimization.optimizers
            if optimization.loss_scales:
                self._loss_scales = optimization.loss_scales
        else:
            self.optimizer = optimization.optimizer
        self.loss_scale = optimization.loss_scale
        self.optimization = optimization
        loss = self.loss = self.objectives.total
        self.named_losses = dict(self.objectives.named)
        self.metrics = dict(metrics or {})
        self.jit_compile = jit_compile
        self.steps_per_execution = check_steps_per_execution(steps_per_execution, name)
        feeds: list[tw.Layer] = []
        for f in (*self.inputs, *self.targets):
            if all(f is not g for g in feeds):
                feeds.append(f)
        self.feeds = tuple(feeds)
        for key, layer in self.metrics.items():
            check_scalar(layer, f"metric {key!r}")
        losses: list[tuple[str, tw.Layer]] = []
        if loss is not None:
            losses = [("loss", loss), *((f"{n}_loss", v) for n, v in self.named_losses.items())]
        graphs = ModelGraphs.build(
            self.inputs,
            self.outputs,
            feeds=self.feeds,
            targets=self.targets,
            losses=len(losses),
            scored=losses + list(self.metrics.items()),
            inference_options=inference_options,
        )
        self.loss_graph, self.eval_graph = graphs.loss, graphs.eval
        # a train_step of its own computes its own losses: no loss= needed; its steps are
        # compiled over the outputs' graph, whose variables it trains
        self.own_step = type(self).train_step is not Model.train_step
        self.step_graph = graphs.loss
        if graphs.loss is None and self.own_step:
            self.step_graph = fed_graph(list(self.outputs), "train_step", self.feeds, self.targets)
        self.inference_graph, self.inference_outputs = graphs.inference, graphs.inference_outputs
        self.inference_options, self.eval_metrics = graphs.inference_options, graphs.eval_metrics
        self.regularized = graphs.regularized
        # The training figures beside the loss: the metrics as given (training mode), filled
        # by ``compute_losses`` from the loss's forward pass (``train_graph``), read per epoch.
        self.train_metrics = training_metrics(self)
        needed = self.train_metrics.needed
        self.train_graph = (
            fed_graph([*graphs.loss.outputs, *needed], "metrics", self.feeds, self.targets)
            if needed and graphs.loss is not None
            else None
        )
        # Tracked: checkpoints and SavedModels see every layer's state through this list.
        self.layers = graphs.layers
        self.objectives.check_in_graph((*self.variables, *self.trainable_variables))
        figures = self.objectives.figure_names(regularized=self.regularized)
        clash = [k for k in self.metrics if k in ("loss", *figures)]
        if clash:
            raise tw.ArgumentError(
                f"Model {name!r}: the metric {clash[0]!r} has the name of a loss figure "
                f"({', '.join(['loss', *figures])}). Fix: rename the metric."
            )
        # the epoch's mean of each named loss and of the regularization (``StepMeans``)
        self.loss_figures: StepMeans | None = None
        if figures:
            with self.strategy.scope():
                self.loss_figures = StepMeans(figures)
        self.steps = Steps(self)  # the compiled steps (not tracked: plain Python state)
        self.runner = Runner(self)  # train, evaluate, predict (not tracked either)

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
        """The variables the losses depend on, less frozen ones (what training updates);
        for a ``train_step`` of its own without ``loss=``, those of the outputs."""
        graph = self.__dict__.get("step_graph")
        if graph is None:
            return ()
        steps = self.__dict__.get("steps")  # remembers them once a train step is traced
        if steps is None:
            return graph.trainable_variables
        return steps.trainable(lambda: graph.trainable_variables)

    # -- the optimizers (``optimization``) ------------------------------------------------
    @property
    def optimizers(self) -> dict[str, Optimizer]:
        """Every optimizer by name (``{"optimizer": ...}`` for a model given one)."""
        return self.optimization.optimizers

    def __getattr__(self, name: str) -> Any:
        # ``optimizer`` of a model given several: the one, or an error naming them
        optimization = self.__dict__.get("optimization")
        if name == "optimizer" and optimization is not None and optimization.several:
            return optimization.optimizer
        if name in KERAS_METHODS:
            raise KerasSpellingError(
                f"{type(self).__name__} has no {name!r} (Keras's spelling): {KERAS_METHODS[name]}."
            )
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def objectives(self) -> Objectives:
        """Which losses each optimizer minimises, which variables it updates
        (``loop.objectives``)."""
        return self.optimization.objectives

    @property
    def loss_scales(self) -> dict[str, LossScale]:
        """Each optimizer's dynamic loss scale by name under ``mixed_float16`` (``{}``
        otherwise; ``{"optimizer": ...}`` for a model given one: ``loss_scale``)."""
        return self.optimization.loss_scales

    def variables_of(self, optimizer: str) -> tuple[tf.Variable, ...]:
        """The trainable variables the optimizer ``optimizer`` updates (``trains``), for a
        ``train_step`` of your own: ``tape.gradient(loss, self.variables_of("generator"))``.
        """
        return self.optimization.variables_of(optimizer)

    def learning_rates(self) -> dict[str, float]:
        """The learning rate each optimizer uses now: ``{"learning_rate": ...}`` for one,
        ``{"<name>_learning_rate": ...}`` for several (the figures the loop reports)."""
        return self.optimization.learning_rates()

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
        self.optimization.optimize(tape, loss, variables, optimizer)

    def require_loss_graph(self) -> tw.Graph:
        """The graph ending in the loss (for a ``train_step`` of its own without a loss,
        the outputs' graph the step is compiled over); a clear error for a model without."""
        if self.step_graph is None:
            raise tw.GraphError(
                "Model.train needs a loss: build the Model with loss=... (or override "
                "train_step to compute your own losses and apply them)."
            )
        return self.step_graph

    def require_eval_graph(self) -> tw.Graph:
        """The graph ``test_step`` computes; a clear error when there is nothing to score."""
        if self.eval_graph is None:
            raise tw.GraphError("Model.evaluate needs a loss= or metrics= to compute.")
        return self.eval_graph

    def feed_dict(self, graph: tw.Graph, batch: Sequence[Any]) -> dict[tw.Layer, Any]:
        """``batch`` (values in ``feeds`` order) as the feed of ``graph``'s inputs."""
        return {f: v for f, v in zip(self.feeds, batch) if f in graph}

    @property
    def metric_states(self) -> dict[str, Any]:
        """The streaming state of the loss and of each metric, by name (``update``,
        ``result``, ``reset``; see ``eval_metrics``)."""
        return self.eval_metrics.states

    # -- the steps (override them for a step of your own) ---------------------------------
    def compute_losses(self, batch: Sequence[tf.Tensor]) -> dict[str, tf.Tensor]:
        """Every loss on one batch (values in ``feeds`` order), from one pass of the
        training graph: ``"loss"`` (the total the model minimises: the weighted sum of the
        named losses, plus the regularization), each named loss by its name, and
        ``"regularization"`` when some layer has a regularizer. The training metrics
        (``train_metrics``) take the batch from the same forward pass."""
        graph = self.loss_graph
        if graph is None:
            raise tw.GraphError(
                f"Model {self.name!r}.compute_losses needs a loss: build the Model with loss=..."
            )
        n_losses = len(graph.outputs)
        run = self.train_graph or graph  # the loss graph's outputs, then the metrics' needs
        out = run.compute(feed=self.feed_dict(run, batch))
        outs = out if isinstance(out, tuple) else (out,)
        if run is not graph:
            size = tf.shape(batch[0])[0]
            self.train_metrics.add_outputs(run.outputs[n_losses:], outs[n_losses:], size)
        losses = {"loss": outs[0], **dict(zip(self.named_losses, outs[1:n_losses], strict=True))}
        if self.regularized:  # the layers the loss depends on, not the metrics' alone
            penalty = tf.cast(tw.regularization_loss(graph), outs[0].dtype)
            losses["regularization"] = penalty
            losses["loss"] = outs[0] + penalty
        return losses

    def compute_loss(self, batch: Sequence[tf.Tensor]) -> tf.Tensor:
        """The total loss on one batch: ``compute_losses(batch)["loss"]``."""
        return self.compute_losses(batch)["loss"]

    def train_step(self, batch: Sequence[tf.Tensor]) -> tf.Tensor | dict[str, tf.Tensor]:
        """One optimisation step on one batch (tensors in ``feeds`` order); returns the
        loss, or ``{"loss": total, name: value}`` with the named losses and the
        regularization (``compute_losses``' names: each is reported as ``<name>_loss``).

        The default computes every loss in one pass and lets each optimizer update its
        variables (``variables_of``) with the gradient of its goal (``loop.objectives``).
        Traced inside the compiled step (``loop.steps``): override it for a step of your
        own (updates in turn, a GAN, a gradient penalty) with ``tf.GradientTape``,
        ``self.optimizers[name]`` and ``self.variables_of(name)``, as Keras's
        ``Model.train_step``; ``train`` keeps running it several steps per call, with
        events, checkpoints and validation. Under a ``tf.distribute`` strategy it runs on
        each replica's share of the batch (``replica_weighted`` scales the losses so the
        summed gradients are the batch's). Called eagerly it runs eagerly, as Keras's
        (``train_on_batch`` runs the compiled step).
        """
        objectives = self.objectives
        shares = objectives.shares(self.trainable_variables)
        # under loss scaling each optimizer takes its own (scaled) gradient: ``optimize``
        separate = objectives.paired or self.precision.loss_scaling
        with tf.GradientTape(persistent=separate and len(shares) > 1) as tape:
            losses = self.compute_losses(batch)
            losses = {k: self.replica_weighted(v, batch) for k, v in losses.items()}
            goals = objectives.goals(losses)
        if separate:
            for name, optimizer in self.optimizers.items():
                self.optimize(tape, goals[name], shares[name], optimizer)
        else:  # one goal: one gradient of every variable, each optimizer its share
            every = [v for share in shares.values() for v in share]
            grads = iter(tape.gradient(losses["loss"], every))
            for name, optimizer in self.optimizers.items():
                optimizer.apply_gradients([(next(grads), v) for v in shares[name]])
        return losses if len(losses) > 1 else losses["loss"]

    def replica_weighted(self, loss: tf.Tensor, batch: Sequence[tf.Tensor]) -> tf.Tensor:
        """``loss`` times this replica's share of the global batch under a
        ``tf.distribute`` strategy (``loss`` as is otherwise), so that the gradients summed
        over the replicas (the optimizer sums them) are those of the whole batch; 0 on a
        replica whose share is empty."""
        ctx = tf.distribute.get_replica_context()
        if not self.distributed or ctx is None:
            return loss
        local = tf.cast(tf.shape(batch[0])[0], tf.float32)
        total = ctx.all_reduce(tf.distribute.ReduceOp.SUM, local)
        share = tf.cast(local / total, loss.dtype)
        return tf.where(local > 0, loss * share, tf.zeros_like(loss))

    def test_step(self, batch: Sequence[tf.Tensor]) -> tf.Tensor:
        """Add one batch (tensors in ``feeds`` order) to ``eval_metrics``; returns its number
        of examples. Traced inside the compiled evaluation step."""
        graph = self.require_eval_graph()
        out = graph.compute(feed=self.feed_dict(graph, batch))
        outs = out if isinstance(out, tuple) else (out,)
        found = {id(layer): t for layer, t in zip(graph.outputs, outs, strict=True)}
        if self.regularized:  # the loss evaluated is the loss minimised, as Keras's
            node = dict(self.eval_metrics.scored)["loss"]
            penalty = tw.regularization_loss(self.require_loss_graph())
            found[id(node)] = found[id(node)] + tf.cast(penalty, found[id(node)].dtype)
        size = tf.shape(batch[0])[0]
        self.eval_metrics.update(found, size)
        return size
