"""``Model``: the inference graph, the training graph ending in a loss, and metrics, together.

As TensorX's ``Model``: you build layers in training mode, then name the data ``inputs``,
the ``outputs``, the ``targets``, the scalar ``loss`` and scalar ``metrics``. The model
derives its inference and evaluation graphs with ``tw.with_options(..., training=False)``
(Dropout off, BatchNorm on its moving statistics, every variable shared), so ``predict``,
``evaluate``, validation and export are deterministic. ``evaluate`` gives the figures of
the whole data for any batch size (``loop.metrics``). The steps are methods a subclass may
override, as Keras's: ``compute_loss``, ``train_step`` and ``test_step``; ``loop.steps``
compiles each once for any batch size and runs several train steps per call.

>>> import numpy as np, tensorflow as tf, tensorweave as tw
>>> x = tw.Input(n_units=1, name="x"); t = tw.Input(n_units=1, name="t")
>>> w = tf.Variable([[0.0]])
>>> y = tw.Lambda(lambda a: a @ w, x, variables=[w], name="y")
>>> loss = tw.Lambda(lambda a, b: tf.reduce_mean((a - b) ** 2), y, t, name="mse")
>>> from tensorweave_train import SGD
>>> m = Model(inputs=x, outputs=y, targets=t, loss=loss, optimizer=SGD(0.1))
>>> xs = np.ones((8, 1), "float32")
>>> _ = m.train({"x": xs, "t": 2 * xs}, epochs=20, batch_size=4, shuffle=False, verbose=0)
>>> round(float(m.predict({"x": xs[:1]})[0, 0]), 2), m.train_trace_count
(2.0, 1)
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw
from tensorweave_train.loop.data import Batches, as_batches, split_validation
from tensorweave_train.loop.history import History
from tensorweave_train.loop.loss_scale import LossScale
from tensorweave_train.loop.metrics import Metrics
from tensorweave_train.loop.steps import Steps, check_steps_per_execution
from tensorweave_train.optimizers import Adam, Optimizer

__all__ = ["Model"]


def _layers(value: tw.Layer | Iterable[tw.Layer] | None) -> tuple[tw.Layer, ...]:
    if value is None:
        return ()
    if isinstance(value, tw.Layer):
        return (value,)
    return tuple(value)


def _check_scalar(layer: tw.Layer, what: str) -> None:
    if not isinstance(layer, tw.Layer):
        raise TypeError(f"Model: {what} must be a tensorweave Layer, got {type(layer).__name__}.")
    if layer.shape != ():
        raise tw.ShapeError(
            f"Model: {what} {layer.name!r} must produce a scalar, but its shape is "
            f"{layer.shape}. Fix: reduce it, e.g. tw.Lambda(tf.reduce_mean, {layer.name})."
        )


class Model(tw.Stateful):
    """Inference, training and evaluation graphs over shared layers.

    Args:
        inputs: the data ``Input`` layers the outputs need.
        outputs: the layer(s) ``predict`` returns.
        loss: a layer producing the scalar to minimise; may use ``inputs``, ``targets``
            and any layers (often a training-mode copy of the outputs).
        targets: ``Input`` layers holding expected values (fed in training/evaluation).
        metrics: ``{name: scalar layer}`` reported by ``evaluate`` and on validation.
        optimizer: an ``Optimizer`` (default ``Adam()``), or a registered name.
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

    # Saved state: every layer's state and the optimizer's (the rest is plain Python), and
    # the loss scale under mixed_float16.
    tracked = ("layers", "optimizer", "loss_scale")

    def __init__(
        self,
        inputs: tw.Layer | Sequence[tw.Layer],
        outputs: tw.Layer | Sequence[tw.Layer],
        *,
        loss: tw.Layer | None = None,
        targets: tw.Layer | Sequence[tw.Layer] | None = None,
        metrics: Mapping[str, tw.Layer] | None = None,
        optimizer: Optimizer | str | None = None,
        strategy: tf.distribute.Strategy | None = None,
        jit_compile: bool | None = None,
        steps_per_execution: int | str = "auto",
        inference_options: Mapping[str, Any] | None = None,
        precision: str | tw.Precision | None = None,
        name: str = "model",
    ) -> None:
        super().__init__(name=name)
        self.precision = tw.Precision.of(precision, owner=f"Model {name!r}")
        self.loss_scale = LossScale() if self.precision.loss_scaling else None
        self.inputs = _layers(inputs)
        self.outputs = _layers(outputs)
        self.targets = _layers(targets)
        self.loss = loss
        self.metrics = dict(metrics or {})
        self.distributed = strategy is not None or tf.distribute.has_strategy()
        self.strategy = strategy or tf.distribute.get_strategy()
        self.jit_compile = jit_compile
        self.steps_per_execution = check_steps_per_execution(steps_per_execution, name)
        feeds: list[tw.Layer] = []
        for f in (*self.inputs, *self.targets):
            if all(f is not g for g in feeds):
                feeds.append(f)
        self.feeds = tuple(feeds)
        self.loss_graph: tw.Graph | None = None
        self.eval_graph: tw.Graph | None = None
        # The graphs as given first: ``layers`` then lists their nodes in the same order as
        # before inference copies existed, so older checkpoints still restore.
        graphs = [tw.Graph.build(inputs=self.inputs, outputs=self.outputs)]
        if loss is not None:
            _check_scalar(loss, "loss")
            self.loss_graph = self._graph([loss], "loss")
            graphs.append(self.loss_graph)
        for key, layer in self.metrics.items():
            _check_scalar(layer, f"metric {key!r}")
        scored_given = ([loss] if loss is not None else []) + list(self.metrics.values())
        if scored_given:
            graphs.append(self._graph(scored_given, "metrics"))  # every input is fed
        # Inference copies of the outputs, loss and metrics, made in one pass so that shared
        # nodes stay shared: what predict, evaluate, validation and export run.
        options = {"training": False} if inference_options is None else dict(inference_options)
        self.inference_options = options
        derived = tw.with_options([*self.outputs, *scored_given], **options)
        self.inference_outputs = tuple(derived[: len(self.outputs)])
        self.inference_graph = tw.Graph.build(inputs=self.inputs, outputs=self.inference_outputs)
        graphs.append(self.inference_graph)
        names = (["loss"] if loss is not None else []) + list(self.metrics)
        # The figures of evaluate and validation: one streaming state per scored node.
        self.eval_metrics = Metrics(list(zip(names, derived[len(self.outputs) :], strict=True)))
        if self.eval_metrics.scored:
            self.eval_graph = self._graph(self.eval_metrics.needed, "metrics")
            graphs.append(self.eval_graph)
        seen: dict[int, tw.Layer] = {}
        for g in graphs:
            for node in g.nodes:
                seen.setdefault(id(node), node)
        # Tracked: checkpoints and SavedModels see every layer's state through this list.
        self.layers = list(seen.values())
        if not (
            optimizer is None or isinstance(optimizer, str) or hasattr(optimizer, "apply_gradients")
        ):
            raise tw.ArgumentError(
                f"Model {name!r}: optimizer must be an Optimizer, a registered optimizer name "
                f"(e.g. 'Adam.v1') or None, got {optimizer!r} ({type(optimizer).__name__})."
            )
        with self.strategy.scope():
            if isinstance(optimizer, str):
                make = tw.resolve(
                    "optimizers", optimizer, owner=f"Model {name!r}", option="optimizer"
                )
                chosen: Optimizer = make()
            else:
                chosen = optimizer if optimizer is not None else Adam()
            self.optimizer = chosen
        self.steps = Steps(self)  # the compiled steps (not tracked: plain Python state)

    def _graph(self, outputs: list[tw.Layer], what: str) -> tw.Graph:
        graph = tw.Graph.build(inputs=None, outputs=outputs)
        unknown = [i.name for i in graph.inputs if all(i is not f for f in self.feeds)]
        if unknown:
            raise tw.GraphError(
                f"Model: the {what} depends on Input layer(s) {unknown}, which are neither "
                f"inputs {[i.name for i in self.inputs]} nor targets "
                f"{[t.name for t in self.targets]}. Fix: pass them in inputs= or targets=."
            )
        return graph

    def require_loss_graph(self) -> tw.Graph:
        """The graph ending in the loss; a clear error for a model without one."""
        if self.loss_graph is None:
            raise tw.GraphError("Model.train needs a loss: build the Model with loss=...")
        return self.loss_graph

    def require_eval_graph(self) -> tw.Graph:
        """The graph ``test_step`` computes; a clear error when there is nothing to score."""
        if self.eval_graph is None:
            raise tw.GraphError("Model.evaluate needs a loss= or metrics= to compute.")
        return self.eval_graph

    def feed_dict(self, graph: tw.Graph, batch: Sequence[Any]) -> dict[tw.Layer, Any]:
        """``batch`` (values in ``feeds`` order) as the feed of ``graph``'s inputs."""
        return {f: v for f, v in zip(self.feeds, batch) if f in graph}

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
        """The variables the loss depends on (what training updates)."""
        if self.loss_graph is None:
            return ()
        return self.loss_graph.trainable_variables

    @property
    def metric_states(self) -> dict[str, Any]:
        """The streaming state of the loss and of each metric, by name (``update``,
        ``result``, ``reset``; see ``eval_metrics``)."""
        return self.eval_metrics.states

    # -- the steps (override them for a step of your own) ---------------------------------
    def compute_loss(self, batch: Sequence[tf.Tensor]) -> tf.Tensor:
        """The loss on one batch (values in ``feeds`` order), from the training graph."""
        graph = self.require_loss_graph()
        return graph.compute(feed=self.feed_dict(graph, batch))

    def train_step(self, batch: Sequence[tf.Tensor]) -> tf.Tensor:
        """One optimisation step on one batch (tensors in ``feeds`` order); returns the loss.

        Traced inside the compiled step (``loop.steps``): override it for a step of your
        own (several optimizers and losses, a GAN), with ``tf.GradientTape`` and
        ``self.optimizer``, as Keras's ``Model.train_step``; ``train`` keeps running it
        several steps per call, with events, checkpoints and validation. Under a
        ``tf.distribute`` strategy it runs on each replica's share of the batch
        (``replica_weighted`` scales the loss so the summed gradients are the batch's).
        Called eagerly it is ``train_on_batch`` (deprecated; call that).
        """
        if not tf.inside_function():
            warnings.warn(
                "calling Model.train_step eagerly is deprecated: it is the step traced inside "
                "the compiled function. Fix: call model.train_on_batch(batch).",
                DeprecationWarning,
                stacklevel=2,
            )
            return self.train_on_batch(batch)
        variables = self.trainable_variables
        with tf.GradientTape() as tape:
            loss = self.replica_weighted(self.compute_loss(batch), batch)
        self.optimize(tape, loss, variables)
        return loss

    def optimize(
        self,
        tape: tf.GradientTape,
        loss: tf.Tensor,
        variables: Sequence[tf.Variable],
        optimizer: Optimizer | None = None,
    ) -> None:
        """Apply the gradients of ``loss`` (recorded on ``tape``) to ``variables`` with
        ``optimizer`` (default ``self.optimizer``): what ``train_step`` does after the
        loss, for a step of your own too. Under ``mixed_float16`` the gradients are taken
        of the scaled loss, unscaled, and a step with a non-finite one is skipped
        (``loop.loss_scale``)."""
        optimizer = self.optimizer if optimizer is None else optimizer
        if self.loss_scale is not None:
            self.loss_scale.apply(tape, loss, variables, optimizer)
            return
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))

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
        size = tf.shape(batch[0])[0]
        self.eval_metrics.update(found, size)
        return size

    # -- compiled ---------------------------------------------------------------------------
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

    # -- the high-level API -----------------------------------------------------------------
    def train(
        self,
        data: Any,
        epochs: int = 1,
        *,
        batch_size: int | None = None,
        validation: Any = None,
        callbacks: Sequence[Any] = (),
        shuffle: bool = True,
        seed: int = 0,
        resume: Any = None,
        verbose: int = 1,
        validation_split: float = 0.0,
    ) -> History:
        """Train for ``epochs`` epochs; see ``Trainer.run``. Returns the ``History``
        (``history.history`` is Keras's dict of lists).

        ``verbose``: 1 a progress bar on a terminal, else a line per epoch; 2 a line per
        epoch; 0 silent (``callbacks.Progress``). ``validation_split``: validate on the last
        fraction of array ``data``, as Keras (``loop.data.split_validation``).
        """
        from tensorweave_train.callbacks.progress import Progress
        from tensorweave_train.loop.trainer import Trainer

        if validation_split:
            if validation is not None:
                raise tw.ArgumentError(
                    "Model.train: give validation= or validation_split=, not both."
                )
            data, validation = split_validation(data, validation_split)
        shown = [Progress(verbose)] if verbose else []
        trainer = Trainer(self, callbacks=[*callbacks, *shown])
        try:
            return trainer.run(
                data,
                epochs,
                batch_size=batch_size,
                validation=validation,
                shuffle=shuffle,
                seed=seed,
                resume=resume,
            )
        except BaseException as err:  # callbacks close what they opened (Callback.on_failure)
            for cb in trainer.callbacks:
                with contextlib.suppress(Exception):
                    cb.on_failure(err, trainer.state)
            raise

    def batches(self, data: Any, *, batch_size: int | None = None, **kw: Any) -> Batches:
        """``data`` as batches over this model's feeds (inputs, then targets)."""
        return as_batches(data, self.feeds, batch_size=batch_size, **kw)

    def evaluate(self, data: Any, *, batch_size: int | None = None) -> dict[str, float]:
        """The loss and metrics over all of ``data``, whatever the batch size: streaming
        metrics accumulate their sums (F1 is the F1 of the whole set), other scalars are
        averaged over examples. Each figure is a float32 value, as Python's shortest
        decimal for it, so the same number is printed, logged and stored everywhere."""
        self.require_eval_graph()
        self.eval_metrics.reset()
        count = 0
        for batch in self.batches(data, batch_size=batch_size).epoch(0):
            count += self.steps.test_one(batch)
        if count == 0:
            raise ValueError("Model.evaluate got no data (zero batches).")
        return self.eval_metrics.results()

    def predict(self, data: Any, *, batch_size: int | None = None) -> Any:
        """The outputs for every example, concatenated into numpy arrays."""
        fn = self.steps.predict
        parts: list[Any] = []
        batches = as_batches(data, self.inputs, batch_size=batch_size)
        for batch in batches.epoch(0):
            out = fn(*batch)
            parts.append(out if isinstance(out, tuple) else (out,))
        if not parts:
            raise ValueError("Model.predict got no data (zero batches).")
        arrays = tuple(np.concatenate([p[i].numpy() for p in parts]) for i in range(len(parts[0])))
        return arrays[0] if len(arrays) == 1 else arrays

    def export(self, path: str, **kw: Any) -> str:
        """Write a SavedModel serving the inference graph; see ``runs.export``."""
        from tensorweave_train.runs.export import export_saved_model

        return export_saved_model(self, path, **kw)

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
