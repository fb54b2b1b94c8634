"""``Model``: the inference graph, the training graph ending in a loss, and metrics, together.

As TensorX's ``Model``: you build layers, then say which ``Input`` layers are data
(``inputs``), what the model answers (``outputs``), which ``Input`` layers hold the
expected answers (``targets``), the scalar layer to minimise (``loss``) and optional
scalar layers to report (``metrics``). Build them in training mode: the model derives its
inference and evaluation graphs with ``tw.with_options(..., training=False)`` (Dropout off,
BatchNorm on its moving statistics, sharing every variable), so ``predict``, ``evaluate``,
validation and export are deterministic. Layers already built with ``training=False`` (an
explicit inference branch) are kept as they are.

- ``train(data, epochs, validation=..., callbacks=...)`` runs the loop of ``Trainer``;
- ``evaluate(data)`` returns the loss and metrics over the whole data: a metric node with a
  streaming state (``node.streaming()``: F1, precision, recall, AUC, accuracy…) accumulates
  its sums over the batches, so the figure equals the metric on all examples at once for
  any batch size; other scalars (a loss) are averaged over examples;
- ``predict(data)`` returns the outputs for every example, as numpy arrays.

The train step is one ``tf.function`` whose input signature comes from the feed layers'
specs (batch ``None``): it is traced once for any batch size. Gradients of gathers stay
``tf.IndexedSlices`` and optimizers apply them sparsely.

>>> import numpy as np, tensorflow as tf, tensorweave as tw
>>> x = tw.Input(n_units=1, name="x"); t = tw.Input(n_units=1, name="t")
>>> w = tf.Variable([[0.0]])
>>> y = tw.Lambda(lambda a: a @ w, x, variables=[w], name="y")
>>> loss = tw.Lambda(lambda a, b: tf.reduce_mean((a - b) ** 2), y, t, name="mse")
>>> from tensorweave_train.optimizers import SGD
>>> m = Model(inputs=x, outputs=y, targets=t, loss=loss, optimizer=SGD(0.1))
>>> xs = np.ones((8, 1), "float32")
>>> _ = m.train({"x": xs, "t": 2 * xs}, epochs=20, batch_size=4, shuffle=False, verbose=0)
>>> round(float(m.predict({"x": xs[:1]})[0, 0]), 2), m.train_trace_count
(2.0, 1)
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw
from tensorweave_train.data import Batches, as_batches
from tensorweave_train.evaluation import ExampleMean, add_batch, figure, needed, state_of
from tensorweave_train.optimizers import Adam, Optimizer
from tensorweave_train.steps import TrainSteps, check_steps_per_execution

__all__ = ["Model", "ExampleMean", "figure"]  # the last two from evaluation, as before


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


class Model(TrainSteps, tw.Stateful):
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
            ``"auto"``: see ``steps``); step events stay exact (see ``execution``).
        inference_options: the per-use options that turn the graphs ``predict`` and
            ``evaluate`` run into inference graphs (default ``{"training": False}``); ``{}``
            runs the graphs as given.
    """

    # Saved state: every layer's state and the optimizer's (the rest is plain Python).
    tracked = ("layers", "optimizer")

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
        name: str = "model",
    ) -> None:
        super().__init__(name=name)
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
        self._loss_graph: tw.Graph | None = None
        self._eval_graph: tw.Graph | None = None
        # The graphs as given first: ``layers`` then lists their nodes in the same order as
        # before inference copies existed, so older checkpoints still restore.
        graphs = [tw.Graph.build(inputs=self.inputs, outputs=self.outputs)]
        if loss is not None:
            _check_scalar(loss, "loss")
            self._loss_graph = self._graph([loss], "loss")
            graphs.append(self._loss_graph)
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
        self._scored: list[tuple[str, tw.Layer]] = list(
            zip(names, derived[len(self.outputs) :], strict=True)
        )
        with tf.init_scope():  # the states' variables are made eagerly
            self._states = {name: state_of(node) for name, node in self._scored}
        if self._scored:
            self._eval_graph = self._graph(self._needed(), "metrics")
            graphs.append(self._eval_graph)
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
                chosen: Optimizer = tw.optimizers.get(optimizer)()
            else:
                chosen = optimizer if optimizer is not None else Adam()
            self.optimizer = chosen
        self._fns: dict[str, Any] = {}
        # (input id, numpy dtype, rank, non-batch axes) already validated by ``Input.check``
        self._checked: set[tuple[Any, ...]] = set()
        self._built_for: Any = None  # the optimizer whose slots ``build`` made
        self._train_cf: Any = None  # the traced train step (``_train_concrete``)

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

    # -- what the steps use ---------------------------------------------------------------
    @property
    def variables(self) -> tuple[tf.Variable, ...]:
        """Every variable of every layer of the model."""
        out: dict[int, tf.Variable] = {}
        for layer in self.layers:
            for v in layer.variables:
                out.setdefault(id(v), v)
        return tuple(out.values())

    @property
    def metric_states(self) -> dict[str, Any]:
        """The streaming state of the loss and of each metric, by name (``update``,
        ``result``, ``reset``): the node's own ``streaming()`` state, else a mean over
        examples (``ExampleMean``). ``evaluate`` resets, fills and reads them."""
        return self._states

    def _needed(self) -> list[tw.Layer]:
        return needed(self._scored, self._states)

    @property
    def eval_function(self) -> Any:
        """The compiled evaluation step ``(*feed values) -> batch size``: it adds the batch to
        every state of ``metric_states``."""
        fn = self._fns.get("eval")
        if fn is None:
            if self._eval_graph is None:
                raise tw.GraphError("Model.evaluate needs a loss= or metrics= to compute.")
            graph = self._eval_graph
            states = self.metric_states
            scored = self._scored

            def body(*values: Any) -> Any:
                out = graph.compute(feed=self._feed_dict(graph, values))
                outs = out if isinstance(out, tuple) else (out,)
                found = {id(layer): t for layer, t in zip(graph.outputs, outs, strict=True)}
                size = tf.shape(values[0])[0]
                add_batch(scored, states, found, size)
                return size

            # a state that cannot compile with XLA (the exact AUC grows) turns XLA off here
            jit = self.jit_compile and all(
                getattr(s, "jit_compatible", True) for s in states.values()
            )
            fn = self._fns["eval"] = tf.function(
                body, input_signature=self._signature(self.feeds), jit_compile=jit or None
            )
        return fn

    @property
    def predict_function(self) -> tw.CompiledGraph:
        """The compiled inference graph (``tw.compile``)."""
        fn = self._fns.get("predict")
        if fn is None:
            fn = self._fns["predict"] = tw.compile(
                self.inference_graph, jit_compile=self.jit_compile
            )
        return fn

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
    ) -> Any:
        """Train for ``epochs`` epochs; see ``Trainer.run``. Returns the ``History``
        (``history.history`` is Keras's dict of lists).

        ``verbose``: 1 a progress bar on a terminal, else a line per epoch; 2 a line per
        epoch; 0 silent (``progress.Progress``). ``validation_split``: validate on the last
        fraction of array ``data``, as Keras (``progress.split_validation``).
        """
        from tensorweave_train.progress import Progress, split_validation
        from tensorweave_train.trainer import Trainer

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
        fn = self.eval_function
        states = self.metric_states
        for state in states.values():
            state.reset()
        count = 0
        for batch in self.batches(data, batch_size=batch_size).epoch(0):
            count += int(fn(*self._check(self.feeds, batch)))
        if count == 0:
            raise ValueError("Model.evaluate got no data (zero batches).")
        return {name: figure(state.result()) for name, state in states.items()}

    def predict(self, data: Any, *, batch_size: int | None = None) -> Any:
        """The outputs for every example, concatenated into numpy arrays."""
        fn = self.predict_function
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
        """Write a SavedModel serving the inference graph; see ``export.export_saved_model``."""
        from tensorweave_train.export import export_saved_model

        return export_saved_model(self, path, **kw)

    def summary(self, print_fn: Any = print) -> str | None:
        """Print the table of layers, output shapes and parameter counts, as Keras; with
        ``print_fn=None`` return it instead. See ``tensorweave_train.summary``."""
        from tensorweave_train.summary import model_summary

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
