"""The compiled train steps of a ``Model``: one step, and several steps in one call.

``TrainSteps`` is the part of ``Model`` that trains (``Model`` inherits it):

- ``train_function``: one step ``(*feed values) -> loss``, a ``tf.function`` whose input
  signature comes from the feed layers' specs (batch ``None``), traced once for any batch
  size; ``train_step(batch)`` checks and converts a batch and calls its traced graph
  directly (skipping the ``tf.function``'s per-call argument binding).
- ``multi_step_function``: ``k`` steps in one call ``(*stacked feed values) -> losses``:
  each value holds ``k`` batches stacked on a new leading axis, and a ``tf.while_loop``
  runs the same step body on each in turn (as Keras's ``steps_per_execution``). The
  per-step Python work of the loop (checks, conversion, a function call, event dispatch)
  is paid once per call instead of once per step. Traced once for any ``k`` and any batch
  size. ``execution.run_epoch`` decides the chunks and keeps events exact. With
  ``jit_compile=True`` the loop runs outside XLA and calls the one-step XLA function
  (``train_function``): XLA compiles one step, not the loop.

``steps_per_execution`` (a ``Model`` argument): ``1`` runs one step per call; an integer
``k > 1`` up to ``k`` steps per call; ``"auto"`` (the default) as many as keep the chunk of
stacked data under ``execution.AUTO_CHUNK_BYTES`` (4 MiB), at most ``execution.AUTO_MAX``
(32) steps: a short step (word2vec, 0.35 ms) gets 32, a CIFAR CNN batch (0.9 MB) 4, where
the per-step overhead is already negligible.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw
from tensorweave.graph.xla import reraise

__all__ = ["TrainSteps", "check_steps_per_execution"]


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


class TrainSteps:
    """The train steps of ``Model`` (a mixin: it uses the model's feeds, loss graph,
    optimizer, strategy and function cache ``_fns``)."""

    feeds: tuple[tw.Layer, ...]
    jit_compile: bool | None
    distributed: bool
    strategy: tf.distribute.Strategy
    optimizer: Any
    _fns: dict[str, Any]
    _checked: set[tuple[Any, ...]]
    _train_cf: Any
    _built_for: Any
    _loss_graph: tw.Graph | None

    def _feed_dict(self, graph: tw.Graph, values: Sequence[Any]) -> dict[tw.Layer, Any]:
        return {f: v for f, v in zip(self.feeds, values) if f in graph}

    def _check(self, layers: Sequence[tw.Layer], batch: Sequence[Any]) -> list[Any]:
        out = []
        for f, v in zip(layers, batch):
            if isinstance(v, tf.Tensor | tf.SparseTensor) and v.dtype == f.dtype:
                out.append(v)
            elif isinstance(v, np.ndarray) and isinstance(f, tw.Input):
                # ``Input.check`` of an array depends only on its dtype and shape (the batch
                # axis is always free): check each (input, dtype, rank, other axes) once, then
                # convert as ``check`` does, saving its per-step cost.
                key = (id(f), v.dtype, v.ndim, v.shape[1:])
                if key in self._checked:
                    out.append(tf.convert_to_tensor(v, dtype=f.dtype))
                else:
                    out.append(f.check(v))
                    self._checked.add(key)
            else:
                out.append(f.check(v) if isinstance(f, tw.Input) else v)
        return out

    def _fits(self, values: Sequence[Any]) -> bool:
        """Whether ``values`` match the train step's signature (the concrete function does
        not check shapes, unlike the ``tf.function``)."""
        return all(f.spec.is_compatible_with(v) for f, v in zip(self.feeds, values))

    def _signature(self, layers: Sequence[tw.Layer]) -> list[tf.TypeSpec]:
        return [f.spec for f in layers]

    @property
    def train_function(self) -> Any:
        """The compiled train step ``(*feed values) -> loss`` (one ``tf.function``)."""
        fn = self._fns.get("train")
        if fn is None:
            self._need_loss()
            fn = self._fns["train"] = tf.function(
                self._train_body,
                input_signature=self._signature(self.feeds),
                jit_compile=self.jit_compile,
            )
        return fn

    def _need_loss(self) -> None:
        if self._loss_graph is None:
            raise tw.GraphError("Model.train needs a loss: build the Model with loss=...")

    @property
    def stackable(self) -> bool:
        """Whether ``multi_step_function`` can run this model (dense feeds, one replica)."""
        return not self.distributed and all(isinstance(f.spec, tf.TensorSpec) for f in self.feeds)

    @property
    def multi_step_function(self) -> Any:
        """``k`` train steps in one call ``(*stacked values) -> losses [k]``: each value is
        ``k`` batches stacked on a new first axis (see the module docstring)."""
        fn = self._fns.get("train_many")
        if fn is None:
            self._need_loss()
            signature = [tf.TensorSpec([None, *f.spec.shape], f.spec.dtype) for f in self.feeds]
            # Under XLA the loop stays outside the compiled cluster and calls the one-step
            # XLA function: XLA on the CPU compiles a convolution inside a while loop to a
            # naive kernel (the CIFAR CNN: 4.4 s a step instead of 0.09 s).
            fn = self._fns["train_many"] = tf.function(self._many_body, input_signature=signature)
        return fn

    def _many_body(self, *stacked: tf.Tensor) -> tf.Tensor:
        count = tf.shape(stacked[0])[0]
        graph = self._loss_graph
        assert graph is not None
        losses = tf.TensorArray(graph.outputs[0].dtype, size=count, element_shape=[])
        step = self.train_function if self.jit_compile else self._train_body

        def body(i: tf.Tensor, out: tf.TensorArray) -> tuple[tf.Tensor, tf.TensorArray]:
            return i + 1, out.write(i, step(*(s[i] for s in stacked)))

        # one iteration at a time: each step reads the variables the previous one wrote
        _, losses = tf.while_loop(
            lambda i, _: i < count, body, (tf.constant(0), losses), parallel_iterations=1
        )
        return losses.stack()

    def _many_concrete(self) -> Any:
        fn = self._fns.get("train_many_cf")
        if fn is None:
            fn = self._fns["train_many_cf"] = self.multi_step_function.get_concrete_function()
        return fn

    def _loss_of(self, values: Sequence[Any]) -> tf.Tensor:
        graph = self._loss_graph
        assert graph is not None  # train_function checked it
        return graph.compute(feed=self._feed_dict(graph, values))

    def _replica_loss_grads(self, values: Sequence[Any]) -> tuple[tf.Tensor, list[Any]]:
        variables = self.trainable_variables
        with tf.GradientTape() as tape:
            loss = self._loss_of(values)
        return loss, tape.gradient(loss, variables)

    def _train_body(self, *values: Any) -> tf.Tensor:
        variables = self.trainable_variables
        if not self.distributed:
            loss, grads = self._replica_loss_grads(values)
            self.optimizer.apply_gradients(zip(grads, variables))
            return loss
        return self._distributed_train(values, variables)

    def _distributed_train(self, values: Sequence[Any], variables: Sequence[tf.Variable]) -> Any:
        strategy = self.strategy
        n = strategy.num_replicas_in_sync
        total = tf.shape(values[0])[0]

        def replica_step(*vals: Any) -> tf.Tensor:
            ctx = tf.distribute.get_replica_context()
            rid = tf.cast(ctx.replica_id_in_sync_group, tf.int32)
            lo, hi = rid * total // n, (rid + 1) * total // n
            shard = [v[lo:hi] for v in vals]
            weight = tf.cast(hi - lo, tf.float32) / tf.cast(total, tf.float32)
            with tf.GradientTape() as tape:
                local = self._loss_of(shard)
                # a shard may be empty (a last batch smaller than the replica count)
                scaled = tf.where(hi > lo, local * tf.cast(weight, local.dtype), 0.0)
            grads = tape.gradient(scaled, variables)
            grads = ctx.all_reduce(tf.distribute.ReduceOp.SUM, grads)
            self.optimizer.apply_gradients(zip(grads, variables))
            return scaled

        per_replica = strategy.run(replica_step, args=tuple(values))
        return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)

    @property
    def trainable_variables(self) -> tuple[tf.Variable, ...]:
        """The variables the loss depends on (what training updates)."""
        if self._loss_graph is None:
            return ()
        return self._loss_graph.trainable_variables

    @property
    def train_trace_count(self) -> int:
        """How many times the train step was traced: the most of the one-step and the
        multi-step function (each is traced once across batch sizes and chunk lengths)."""
        fns = [self._fns.get(k) for k in ("train", "train_many")]
        return max(
            (int(fn.experimental_get_tracing_count()) for fn in fns if fn is not None), default=0
        )

    def build(self) -> None:
        """Create the optimizer's slots for the trainable variables (before restoring).

        Once the train step is traced its variables are fixed, so later calls (one per
        ``train``) skip walking every layer's variables while the optimizer is the same.
        """
        if self._built_for is not None and self._built_for() is self.optimizer:
            return
        with self.strategy.scope():
            self.optimizer.build(self.trainable_variables)
        if self._train_cf is not None or "train_many_cf" in self._fns:
            self._built_for = weakref.ref(self.optimizer)

    def _train_concrete(self) -> Any:
        """The traced train step, called directly: the ``tf.function`` would bind and match
        the arguments against its signature again on every call (~0.15 ms a step)."""
        fn = self._train_cf
        if fn is None:
            fn = self.train_function.get_concrete_function()
            # not tracked: checkpoints and SavedModels must not see it
            self._train_cf = fn
            self._built_for = weakref.ref(self.optimizer)
        return fn

    def train_step(self, batch: Sequence[Any]) -> tf.Tensor:
        """One optimisation step on one batch (values in ``feeds`` order); returns the loss."""
        if "train" not in self._fns:
            self.build()
        values = self._check(self.feeds, batch)
        try:
            if self.distributed:
                with self.strategy.scope():
                    return self.train_function(*values)
            if self._fits(values):
                return self._train_concrete()(*values)
            return self.train_function(*values)  # raises the signature mismatch
        except tf.errors.InvalidArgumentError as error:
            return self._xla_error(error)

    def _xla_error(self, error: Exception) -> Any:
        """Name the layer XLA could not compile (``tensorweave.graph.xla``), else re-raise."""
        if not self.jit_compile or self._loss_graph is None:
            raise error
        return reraise(error, self._loss_graph, f"Model {getattr(self, 'name', '')!r}")

    def train_steps(self, stacked: Sequence[Any]) -> tf.Tensor:
        """``k`` optimisation steps on ``k`` batches stacked on a new first axis (values
        already checked, in ``feeds`` order, see ``execution``); returns the ``k`` losses."""
        if "train_many" not in self._fns:
            self.build()
        try:
            return self._many_concrete()(*stacked)
        except tf.errors.InvalidArgumentError as error:
            return self._xla_error(error)
