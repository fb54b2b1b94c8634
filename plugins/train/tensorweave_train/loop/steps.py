"""The compiled steps of a ``Model``: where its step methods become compiled functions.

``Steps`` compiles, once each, through the core's ``tw.compile(graph, body=...)`` (one
compiled-function machinery: signature from the feed layers' specs with a free batch axis,
traced once for any batch size, the fast path for eager tensors, inline calls, XLA errors
naming the layer):

- ``train``: ``Model.train_step`` on one batch; under a ``tf.distribute`` strategy it runs
  on each replica's share of the batch (``strategy.run``; who gets which examples:
  ``loop.distribute``) and the losses are summed. A step that returns
  ``{"loss": ..., name: ...}`` has its named values added to the model's ``loss_figures``
  (the epoch's ``<name>_loss``); a step of its own returning any other dict has each value
  reported under its own name, as Keras 3's (no ``loss`` unless it returns one); the call
  returns the loss (``0`` when the step returns none);
- ``train_many``: ``k`` train steps in one call, each value holding ``k`` batches stacked on
  a new first axis, run by a ``tf.while_loop`` (Keras's ``steps_per_execution``): the
  per-step Python work (checks, conversion, a call, event dispatch) is paid once per call.
  Under XLA the loop stays outside the compiled cluster and calls the one-step XLA function
  (XLA on the CPU compiles a convolution inside a while loop to a naive kernel);
- ``test``: ``Model.test_step`` on one batch (adds it to the evaluation metrics);
- ``predict``: the inference graph.

A frozen or unfrozen layer (``Layer.freeze``) changes what the train steps update: the next
``build`` (each ``Model.train``, each ``train_on_batch``) sees it and traces them again.

It also checks the batches fed to them (``check``): ``Input.check`` of an array depends only
on its dtype and shape (the batch axis is free), so each (input, dtype, rank, other axes) is
checked once and later batches are only converted.

``steps_per_execution`` (a ``Model`` argument): ``1`` runs one step per call; an integer
``k > 1`` up to ``k`` steps per call; ``"auto"`` (the default) as many as keep the chunk of
stacked data under ``loop.execution.AUTO_CHUNK_BYTES``, at most ``AUTO_MAX`` steps.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import tensorflow as tf

import tensorweave as tw
from tensorweave.graph.compile import reraise
from tensorweave_train.loop.distribute import replica_share
from tensorweave_train.loop.metrics import StepMeans

if TYPE_CHECKING:
    from tensorweave_train.loop.metrics import Metrics
    from tensorweave_train.loop.objectives import Objectives
    from tensorweave_train.optimizers import Optimizer

__all__ = ["Stepped", "Steps", "check_steps_per_execution"]


class Stepped(Protocol):
    """What the compiled steps read of a ``Model``: its step methods, graphs and settings."""

    @property
    def name(self) -> str: ...

    @property
    def feeds(self) -> tuple[tw.Layer, ...]: ...

    @property
    def layers(self) -> list[tw.Layer]: ...

    @property
    def precision(self) -> tw.Precision: ...

    @property
    def jit_compile(self) -> bool | None: ...

    @property
    def distributed(self) -> bool: ...

    @property
    def strategy(self) -> tf.distribute.Strategy: ...

    @property
    def inference_graph(self) -> tw.Graph: ...

    @property
    def eval_metrics(self) -> Metrics: ...

    @property
    def loss_figures(self) -> StepMeans | None: ...

    @property
    def objectives(self) -> Objectives: ...

    @property
    def optimizers(self) -> dict[str, Optimizer]: ...

    @property
    def trainable_variables(self) -> tuple[tf.Variable, ...]: ...

    def require_loss_graph(self) -> tw.Graph: ...

    def require_eval_graph(self) -> tw.Graph: ...

    def train_step(self, batch: Sequence[tf.Tensor]) -> tf.Tensor | dict[str, tf.Tensor]: ...

    def test_step(self, batch: Sequence[tf.Tensor]) -> tf.Tensor: ...


def check_steps_per_execution(value: Any, owner: str = "Model") -> int | str:
    """``value`` as a positive int or ``"auto"``, else a clear error.

    >>> check_steps_per_execution("auto"), check_steps_per_execution(8)
    ('auto', 8)
    """
    if value == "auto":
        return "auto"
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise tw.ArgumentError(
            f"{owner}: steps_per_execution must be a positive integer or 'auto', got "
            f"{value!r}. Fix: steps_per_execution=1 runs one step per call (no batching)."
        )
    return int(value)


class Steps:
    """The compiled steps of ``model`` and the checks of the batches fed to them (see the
    module docstring). ``Model`` makes one; the training loop calls it."""

    def __init__(self, model: Stepped) -> None:
        self.model = model
        self.owner = f"Model {model.name!r}"
        self._train: tw.CompiledGraph | None = None
        self._train_many: tw.CompiledGraph | None = None
        self._test: tw.CompiledGraph | None = None
        self._predict: tw.CompiledGraph | None = None
        # (input id, numpy dtype, rank, non-batch axes) already validated by ``Input.check``
        self.checked: set[tuple[Any, ...]] = set()
        self._built_for: Any = None  # (optimizers, frozen states) whose slots exist
        self._traced_for: Any = None  # the frozen states the train steps were traced with
        self._states: list[tw.LayerState] | None = None  # every layer state, for freeze_key
        self._shard = "data"  # how a strategy's workers share batches (loop.distribute)
        self._trainable: tuple[Any, tuple[tf.Variable, ...]] | None = None  # (when, variables)

    @property
    def shard(self) -> str:
        """How the workers of a strategy share each batch, ``"data"`` or ``"off"`` (see
        ``loop.distribute``); setting another one drops the train steps traced for the old."""
        return self._shard

    @shard.setter
    def shard(self, mode: str) -> None:
        if mode != self._shard:
            self._shard = mode
            self._train = self._train_many = None

    # -- the compiled functions ---------------------------------------------------------
    def _compile(
        self,
        graph: tw.Graph,
        body: Any,
        *,
        jit_compile: bool | None,
        signature: Sequence[tf.TypeSpec] | None = None,
    ) -> tw.CompiledGraph:
        """Every step of the model is compiled here, over the feed layers' specs."""
        return tw.compile(
            graph,
            body=body,
            input_signature=[f.spec for f in self.model.feeds] if signature is None else signature,
            jit_compile=jit_compile,
            owner=self.owner,
            precision=self.model.precision,
        )

    @property
    def train(self) -> tw.CompiledGraph:
        """One train step ``(*feed values) -> loss``."""
        if self._train is None:
            model = self.model
            self._traced_for = self.freeze_key()
            self._train = self._compile(
                model.require_loss_graph(), self._train_body, jit_compile=model.jit_compile
            )
        return self._train

    def _train_body(self, *values: tf.Tensor) -> tf.Tensor:
        model = self.model
        if not model.distributed:
            return self._tally(model.train_step(list(values)))
        strategy = model.strategy
        local = self.shard == "off"
        per_replica = strategy.run(
            lambda *vals: model.train_step(replica_share(vals, strategy, local=local)),
            args=values,
        )
        summed = tf.nest.map_structure(
            lambda v: strategy.reduce(tf.distribute.ReduceOp.SUM, v, axis=None), per_replica
        )
        return self._tally(summed)

    def _tally(self, out: Any) -> tf.Tensor:
        """The loss of a step's result; its other values (a dict's) go to the model's
        ``loss_figures``, as ``<name>_loss``."""
        model = self.model
        figures = model.loss_figures
        if not isinstance(out, Mapping):
            if figures is not None:
                figures.reported = []  # a step of its own that returns the loss alone
            return out
        known = [] if figures is None else figures.names
        named = {f"{k}_loss": v for k, v in out.items() if k != "loss"}
        unknown = sorted(set(named) - set(known))
        if getattr(model, "own_step", False) and (
            getattr(model, "loss", None) is None or "loss" not in out or unknown
        ):
            # a step of its own reports what it returns, as Keras's: the model's named losses
            # as ``<name>_loss`` only beside the total, as the built-in step returns them
            return self._tally_own(dict(out))
        if "loss" not in out or unknown:
            problem = f"{unknown} are not figures of the model" if unknown else "no 'loss'"
            raise tw.TensorweaveError(
                f"Model {model.name!r}: train_step returned {sorted(out)}: {problem}. Fix: "
                "return the total as 'loss', and beside it only the model's named losses "
                "(loss={...}) and 'regularization' (figures: "
                f"{', '.join(['loss', *known])})."
            )
        if figures is not None and named:
            figures.reported = [n for n in known if n in named]
            figures.add({n: named.get(n, tf.zeros([])) for n in known})
        return out["loss"]

    def _tally_own(self, out: dict[str, Any]) -> tf.Tensor:
        """The figures a ``train_step`` of its own returns (a model without ``loss=``, or a
        dict that is not ``{"loss": total, <named loss>: ...}``), as Keras's: each value the
        epoch's mean under its own name (a ``StepMeans`` made when the step is first
        traced); its ``"loss"`` is the epoch's ``loss`` when it returns one, and there is no
        ``loss`` figure when it does not (``History``, the progress display, ``log.csv``)."""
        model: Any = self.model  # sets the figures it reports
        names = [k for k in out if k != "loss"]
        figures = model.loss_figures
        if names and (figures is None or figures.names != names):
            figures = model.loss_figures = StepMeans(names)
        if figures is not None and names:
            figures.add({n: out[n] for n in names})
        model.reports_loss = "loss" in out
        return tf.cast(out.get("loss", tf.zeros([])), tf.float32)

    @property
    def train_many(self) -> tw.CompiledGraph:
        """``k`` train steps in one call ``(*stacked values) -> losses [k]``."""
        if self._train_many is None:
            self._traced_for = self.freeze_key()
            graph = self.model.require_loss_graph()
            signature = [
                tf.TensorSpec([None, *f.spec.shape], f.spec.dtype) for f in self.model.feeds
            ]
            self._train_many = self._compile(
                graph, self._many_body, jit_compile=None, signature=signature
            )
        return self._train_many

    def _many_body(self, *stacked: tf.Tensor) -> tf.Tensor:
        count = tf.shape(stacked[0])[0]
        graph = getattr(self.model, "loss_graph", None)  # None: a step of its own, no loss=
        dtype = graph.outputs[0].dtype if graph is not None else tf.float32
        losses = tf.TensorArray(dtype, size=count, element_shape=[])
        step = self.train  # inline here; under XLA, a call of the one-step XLA function

        def body(i: tf.Tensor, out: tf.TensorArray) -> tuple[tf.Tensor, tf.TensorArray]:
            return i + 1, out.write(i, step(*(s[i] for s in stacked)))

        # one iteration at a time: each step reads the variables the previous one wrote
        _, losses = tf.while_loop(
            lambda i, _: i < count, body, (tf.constant(0), losses), parallel_iterations=1
        )
        return losses.stack()

    @property
    def test(self) -> tw.CompiledGraph:
        """One evaluation step ``(*feed values) -> batch size``: adds the batch to
        ``Model.eval_metrics``."""
        if self._test is None:
            model = self.model
            # a state that cannot compile with XLA (the exact AUC grows) turns XLA off here
            jit = model.jit_compile and model.eval_metrics.jit_compatible
            self._test = self._compile(
                model.require_eval_graph(),
                lambda *values: model.test_step(list(values)),
                jit_compile=jit or None,
            )
        return self._test

    @property
    def predict(self) -> tw.CompiledGraph:
        """The inference graph, compiled."""
        if self._predict is None:
            graph = self.model.inference_graph
            self._predict = tw.compile(
                graph,
                jit_compile=self.model.jit_compile,
                owner=self.owner,
                precision=self.model.precision,
            )
        return self._predict

    @property
    def train_trace_count(self) -> int:
        """How many times a train step was traced: the most of the one-step and the
        multi-step function (each is traced once across batch sizes and chunk lengths)."""
        fns = [fn for fn in (self._train, self._train_many) if fn is not None]
        return max((fn.trace_count for fn in fns), default=0)

    # -- feeding them -------------------------------------------------------------------
    def check(self, layers: Sequence[tw.Layer], batch: Sequence[Any]) -> list[Any]:
        """``batch`` (one value per layer of ``layers``) checked and converted to tensors."""
        out = []
        for f, v in zip(layers, batch):
            if isinstance(v, tf.Tensor | tf.SparseTensor) and v.dtype == f.dtype:
                out.append(v)
            elif isinstance(v, np.ndarray) and isinstance(f, tw.Input):
                key = (id(f), v.dtype, v.ndim, v.shape[1:])
                if key in self.checked:
                    out.append(tf.convert_to_tensor(v, dtype=f.dtype))
                else:
                    out.append(f.check(v))
                    self.checked.add(key)
            else:
                out.append(f.check(v) if isinstance(f, tw.Input) else v)
        return out

    def fits(self, values: Sequence[Any]) -> bool:
        """Whether ``values`` match the train step's signature."""
        return all(f.spec.is_compatible_with(v) for f, v in zip(self.model.feeds, values))

    @property
    def stackable(self) -> bool:
        """Whether ``train_many`` can run the model (dense feeds, one replica)."""
        return not self.model.distributed and all(
            isinstance(f.spec, tf.TensorSpec) for f in self.model.feeds
        )

    def freeze_key(self) -> tuple[bool, ...]:
        """Which of the model's layer states are trainable (``Layer.freeze``): a change
        means the train steps must be traced again."""
        if self._states is None:
            found: dict[int, tw.LayerState] = {}
            for layer in self.model.layers:
                for module in (layer.state, *layer.state.submodules):
                    if isinstance(module, tw.LayerState):
                        found.setdefault(id(module), module)
            self._states = list(found.values())
        return tuple(bool(s.trainable) for s in self._states)

    def trainable(self, find: Any) -> tuple[tf.Variable, ...]:
        """The model's trainable variables, ``find()``, remembered once a train step is
        traced (its variables are fixed then) while the frozen layers and the traced steps
        stay the same: walking every layer's modules cost more than a short epoch's Python
        (``Model.train`` asked twice per call: the NaN check of the weights, the optimizers'
        ``finalize``). Never remembered while tracing (a layer may create variables then)."""
        fns = (self._train, self._train_many)
        if tf.inside_function() or not any(fn is not None and fn.trace_count for fn in fns):
            return find()
        when = (self.freeze_key(), self._traced_for, *(id(fn) for fn in fns))
        when = (*when, *(0 if fn is None else fn.trace_count for fn in fns))
        if self._trainable is None or self._trainable[0] != when:
            self._trainable = (when, tuple(find()))
        return self._trainable[1]

    def build(self) -> None:
        """Create the optimizers' slots for their variables (before restoring).

        Once a train step is traced its variables are fixed, so later calls (one per
        ``train``) skip walking every layer's variables while the optimizers and the frozen
        layers are the same. A layer frozen or unfrozen since the train steps were traced
        drops them: the next call traces them again with the new variables.
        """
        model = self.model
        frozen = self.freeze_key()
        if self._traced_for is not None and self._traced_for != frozen:
            self._train = self._train_many = None
            self._traced_for = self._built_for = None
        optimizers = tuple(model.optimizers.values())
        key = (optimizers, frozen)
        if self._built_for is not None and self._built_for == key:
            return
        shares = model.objectives.shares(model.trainable_variables)
        with model.strategy.scope():
            for name, optimizer in model.optimizers.items():
                optimizer.build(shares[name])
        if self._train is not None or self._train_many is not None:
            self._built_for = key

    def train_one(self, batch: Sequence[Any]) -> tf.Tensor:
        """One optimisation step on one batch (values in ``feeds`` order); the loss."""
        self.build()
        values = self.check(self.model.feeds, batch)
        if self.model.distributed:
            with self.model.strategy.scope():
                return self.train(*values)
        return self.train(*values)

    def train_chunk(self, stacked: Sequence[Any]) -> tf.Tensor:
        """``k`` optimisation steps on ``k`` batches stacked on a new first axis (values
        checked, in ``feeds`` order, see ``loop.execution``); the ``k`` losses."""
        if self._train_many is None:
            self.build()
        try:
            return self.train_many(*stacked)
        except tf.errors.InvalidArgumentError as error:
            if not self.model.jit_compile:
                raise
            # the loop runs outside XLA: the one-step XLA function inside it failed
            return reraise(error, self.model.require_loss_graph(), self.owner)

    def test_one(self, batch: Sequence[Any]) -> int:
        """Add one batch to the evaluation metrics; its number of examples."""
        return int(self.test(*self.check(self.model.feeds, batch)))
