"""``Model``: the inference graph, the training graph ending in its losses, and metrics.

As TensorX's ``Model``: you build layers in training mode, then name the data ``inputs``,
the ``outputs``, the ``targets``, the scalar ``loss`` (or several named losses with
weights) and scalar ``metrics``. The model derives its inference and evaluation graphs with
``tw.with_options(..., training=False)`` (Dropout off, BatchNorm on its moving statistics,
every variable shared), so ``predict``, ``evaluate``, validation and export are
deterministic. ``evaluate`` gives the figures of the whole data for any batch size
(``loop.metrics``). Several optimizers each update their share of the variables
(``trains=``; see ``loop.objectives``). The steps are methods a subclass may override, as
Keras's: ``compute_losses``, ``train_step`` and ``test_step``; ``loop.steps`` compiles each
once for any batch size and runs several train steps per call. ``Model`` holds three
parts: ``optimization`` (``loop.optimization.Optimization``: the optimizers, their loss
scales and learning rates, ``optimize``), ``steps`` (``loop.steps.Steps``, the compiled
steps) and ``runner`` (``loop.model_running.Runner``: ``train``, ``evaluate``,
``predict``).

>>> import numpy as np, tensorflow as tf, tensorweave as tw
>>> x = tw.Input(n_units=1, name="x"); t = tw.Input(n_units=1, name="t")
>>> w = tf.Variable([[0.0]])
>>> y = tw.Lambda(lambda a: a @ w, x, variables=[w], name="y")
>>> loss = tw.Lambda(lambda a, b: tf.reduce_mean((a - b) ** 2), y, t, name="mse")
>>> from tensorweave_train import SGD
>>> m = Model(inputs=x, outputs=y, targets=t, loss=loss, optimizer=SGD(0.1))
>>> xs = np.ones((8, 1), "float32")
>>> _ = m.train(xs, 2 * xs, epochs=20, batch_size=4, shuffle=False, verbose=0)
>>> round(float(m.predict(xs[:1])[0, 0]), 2), m.train_trace_count
(2.0, 1)
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_train.loop.data import Batches
from tensorweave_train.loop.graphs import ModelGraphs, fed_graph
from tensorweave_train.loop.history import History
from tensorweave_train.loop.loss_scale import LossScale
from tensorweave_train.loop.metrics import StepMeans, training_metrics
from tensorweave_train.loop.model_arguments import (
    check_keras_keywords,
    loss_by_name,
    named_inputs,
)
from tensorweave_train.loop.model_running import Runner
from tensorweave_train.loop.objectives import Objectives, Owned, check_scalar
from tensorweave_train.loop.optimization import Optimization
from tensorweave_train.loop.services import services
from tensorweave_train.loop.steps import Steps, check_steps_per_execution
from tensorweave_train.optimizers import Optimizer

__all__ = ["KERAS_METHODS", "KerasSpellingError", "Model"]


#: Keras's ``Model`` methods that tensorweave spells otherwise, and what to write
KERAS_METHODS = {
    "fit": "use model.train(x, y, epochs=..., batch_size=..., validation=(x_val, y_val))",
    "fit_generator": "use model.train(batches, epochs=...) (any iterable of batches)",
    "compile": (
        "give the loss, optimizer and metrics when building the model: Model(inputs, "
        "outputs, loss=..., optimizer=..., metrics={...}), or loss='<registered loss name>'"
    ),
    "evaluate_generator": "use model.evaluate(batches)",
    "predict_generator": "use model.predict(batches)",
    "predict_on_batch": "use model.predict(x)",
    "test_on_batch": "use model.evaluate(x, y)",
    "get_weights": "use [v.numpy() for v in model.variables]",
    "set_weights": "use v.assign(value) for each of model.variables",
    "save_weights": "use model.save(path) (config and weights) or a Checkpoint.v1 callback",
    "load_weights": "use tensorweave_train.load_model(path)",
    "count_params": "use model.summary() (it ends with the parameter counts)",
    "stop_training": "use a callback's state.request_stop(reason)",
}


class KerasSpellingError(tw.ArgumentError, AttributeError):
    """A Keras ``Model`` method tensorweave spells otherwise (``fit``, ``compile``...): an
    ``AttributeError`` (``hasattr`` is ``False``) whose message says what to write."""


def _layers(value: tw.Layer | Iterable[tw.Layer] | None) -> tuple[tw.Layer, ...]:
    if value is None:
        return ()
    if isinstance(value, tw.Layer):
        return (value,)
    return tuple(value)


class Model(tw.Stateful):
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
        return graph.trainable_variables

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

    # -- compiled (``steps``) -------------------------------------------------------------
    @property
    def train_function(self) -> Any:
        """The ``tf.function`` of one train step ``(*feed values) -> loss``."""
        return self.steps.train.function

    @property
    def multi_step_function(self) -> Any:
        """The ``tf.function`` of ``k`` train steps ``(*stacked values) -> losses [k]``."""
        return self.steps.train_many.function

    @property
    def eval_function(self) -> Any:
        """The ``tf.function`` of one evaluation step ``(*feed values) -> batch size``."""
        return self.steps.test.function

    @property
    def predict_function(self) -> tw.CompiledGraph:
        """The compiled inference graph (``tw.compile``)."""
        return self.steps.predict

    @property
    def train_trace_count(self) -> int:
        """How many times the train step was traced (once across batch sizes)."""
        return self.steps.train_trace_count

    def build(self) -> None:
        """Create the optimizer's slots for the trainable variables (before restoring)."""
        self.steps.build()

    def train_on_batch(self, batch: Sequence[Any]) -> tf.Tensor:
        """One compiled optimisation step on one batch (values in ``feeds`` order: arrays
        or tensors); returns the loss."""
        return self.steps.train_one(batch)

    # -- run on data (``runner``) ---------------------------------------------------------
    def train(
        self,
        x: Any,
        y: Any = None,
        *,
        epochs: int = 1,
        batch_size: int | None = None,
        validation: Any = None,
        callbacks: Sequence[Any] = (),
        shuffle: bool = True,
        seed: int = 0,
        resume: Any = None,
        verbose: int = 1,
        validation_split: float = 0.0,
        shard: str = "auto",
        **keras: Any,
    ) -> History:
        """Train for ``epochs`` epochs; see ``Trainer.run``. Returns the ``History``
        (``history.history`` is Keras's dict of lists).

        ``x`` and ``y``: as Keras's ``fit(x, y)``, the inputs' and the targets' arrays (an
        array each, or a list in order, or a dict by name); or ``x`` alone holding
        everything (a dict by name, a tuple in ``feeds`` order, a dataset, a list of
        batches, a function returning them: ``loop.data``). ``verbose``: 1 a progress bar
        on a terminal, else a line per epoch; 2 a line per epoch; 0 silent
        (``callbacks.Progress``, given to the ``Trainer`` through ``loop.services``).
        ``validation_split``: validate on the last fraction of
        array data, as Keras (``loop.data.split_validation``). ``batch_size``, ``epochs``
        and the model's ``steps_per_execution`` are checked first (``loop.model_arguments``).
        ``shard``: how the workers of a strategy share the data (``loop.distribute``).
        Keras's other names (``validation_data=``) are a ``tw.ArgumentError`` saying what
        to write.
        """
        if keras:
            known = list(inspect.signature(Model.train).parameters)[1:-1]
            check_keras_keywords(f"Model {self.name!r}.train", keras, known)
        return self.runner.train(
            x,
            y,
            epochs=epochs,
            batch_size=batch_size,
            validation=validation,
            callbacks=callbacks,
            shuffle=shuffle,
            seed=seed,
            resume=resume,
            verbose=verbose,
            validation_split=validation_split,
            shard=shard,
        )

    def batches(self, data: Any, *, batch_size: int | None = None, **kw: Any) -> Batches:
        """``data`` as batches over this model's feeds (inputs, then targets)."""
        return self.runner.batches(data, batch_size=batch_size, **kw)

    def evaluate(self, x: Any, y: Any = None, *, batch_size: int | None = None) -> dict[str, float]:
        """The loss and metrics over all of the data (``x``, ``y`` as for ``train``),
        whatever the batch size: streaming metrics accumulate their sums (F1 is the F1 of
        the whole set), other scalars are averaged over examples. Each figure is a float32
        value, as Python's shortest decimal for it, so the same number is printed, logged
        and stored everywhere."""
        return self.runner.evaluate(x, y, batch_size=batch_size)

    def predict(self, x: Any, *, batch_size: int | None = None) -> Any:
        """The outputs for every example of ``x`` (an array for one input, a list in order
        or a dict by name, or batches), concatenated into numpy arrays."""
        return self.runner.predict(x, batch_size=batch_size)

    def get_config(self) -> dict[str, Any]:
        """The job config that rebuilds this model through the registries (a ``[model]``
        graph block, ``[optimizer]``...; ``runs.saving``, through ``loop.services``); a
        ``ConfigError`` names each part that has no config form."""
        return services().model_config(self)

    def save(self, path: str | Path, *, overwrite: bool = False) -> Path:
        """Write this model as a run directory (its config and a checkpoint of every
        variable and optimizer slot): ``tensorweave_train.load_model(path)`` gives it back,
        predicting bit for bit the same. See ``runs.saving`` (through ``loop.services``)."""
        return services().save_model(self, path, overwrite=overwrite)

    def export(
        self,
        path: str | Path,
        format: str = "savedmodel",
        *,
        quantize: str | None = None,
        calibration: Any = None,
        validation: Any = None,
        overwrite: bool = False,
    ) -> Path:
        """Write the inference graph in an installed export ``format`` (``savedmodel``;
        ``onnx``, ``litert`` with tensorweave-deploy) as the directory ``path``: the
        artifact and ``model.json``. ``quantize``: ``"dynamic"``, ``"float16"`` or
        ``"int8"`` where the format has it (``int8`` takes ``calibration`` inputs); with
        ``validation`` data a quantized export's accuracy change is measured into
        model.json; ``overwrite`` replaces an earlier export. See ``runs.export`` (through
        ``loop.services``)."""
        return services().export_model(
            self,
            path,
            format=format,
            quantize=quantize,
            calibration=calibration,
            validation=validation,
            overwrite=overwrite,
        )

    def summary(self, print_fn: Any = print) -> str | None:
        """Print the table of layers, output shapes and parameter counts, as Keras; with
        ``print_fn=None`` return it instead. See ``loop.summary``."""
        from tensorweave_train.loop.summary import model_summary

        text = model_summary(self)
        if print_fn is None:
            return text
        print_fn(text)
        return None

    def __repr__(self) -> str:
        return (
            f"Model(inputs={[i.name for i in self.inputs]}, outputs="
            f"{[o.name for o in self.outputs]}, targets={[t.name for t in self.targets]}, "
            f"loss={self.loss.name if self.loss is not None else None!r}, "
            f"metrics={list(self.metrics)})"
        )
