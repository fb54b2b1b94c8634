"""``ModelRunning``: a ``Model`` run on data: ``train``, ``evaluate``, ``predict``.

The part of ``Model`` that takes data in every form ``loop.data`` reads, checks the sizes
(``loop.model_arguments``) and runs the compiled steps (``loop.steps``: ``train_function``,
``eval_function``, ``predict_function``…) over it: ``train`` through a ``Trainer``
(epochs, callbacks, validation, resume), ``evaluate`` streaming the figures of the whole
data, ``predict`` concatenating the outputs. ``Model`` inherits it; the methods are
documented as the model's.

>>> import numpy as np, tensorflow as tf, tensorweave as tw
>>> from tensorweave_train.loop.model import Model
>>> x = tw.Input(n_units=1, name="x")
>>> y = tw.Lambda(lambda a: 2 * a, x, name="y")
>>> m = Model(inputs=x, outputs=y)
>>> isinstance(m, ModelRunning), m.predict(np.ones((3, 1), "float32"), batch_size=2).tolist()
(True, [[2.0], [2.0], [2.0]])
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import tensorflow as tf

import tensorweave as tw
from tensorweave_train.loop.data import Batches, as_batches
from tensorweave_train.loop.history import History
from tensorweave_train.loop.model_arguments import check_sizes, fit_arguments, fit_data
from tensorweave_train.loop.services import services

if TYPE_CHECKING:
    from tensorweave_train.loop.metrics import Metrics
    from tensorweave_train.loop.steps import Steps
    from tensorweave_train.loop.trainer import Trained

__all__ = ["ModelRunning"]


class ModelRunning:
    """What runs a ``Model`` on data: its compiled steps, ``train``, ``evaluate``, ``predict``."""

    if TYPE_CHECKING:  # set by Model.__init__
        name: str
        inputs: tuple[tw.Layer, ...]
        targets: tuple[tw.Layer, ...]
        feeds: tuple[tw.Layer, ...]
        eval_metrics: Metrics
        steps: Steps

        def require_eval_graph(self) -> tw.Graph: ...

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
        """
        from tensorweave_train.loop.trainer import Trainer

        model = cast("Trained", self)  # this part of a Model runs the whole of it
        data, validation, epochs = fit_arguments(
            model, x, y, epochs, batch_size, validation, validation_split
        )
        shown = [services().progress(verbose)] if verbose else []
        trainer = Trainer(model, callbacks=[*callbacks, *shown])
        try:
            return trainer.run(
                data,
                epochs,
                batch_size=batch_size,
                validation=validation,
                shuffle=shuffle,
                seed=seed,
                resume=resume,
                shard=shard,
            )
        except BaseException as err:  # callbacks close what they opened (Callback.on_failure)
            for cb in trainer.callbacks:
                with contextlib.suppress(Exception):
                    cb.on_failure(err, trainer.state)
            raise

    def batches(self, data: Any, *, batch_size: int | None = None, **kw: Any) -> Batches:
        """``data`` as batches over this model's feeds (inputs, then targets)."""
        return as_batches(data, self.feeds, batch_size=batch_size, **kw)

    def evaluate(self, x: Any, y: Any = None, *, batch_size: int | None = None) -> dict[str, float]:
        """The loss and metrics over all of the data (``x``, ``y`` as for ``train``),
        whatever the batch size: streaming metrics accumulate their sums (F1 is the F1 of
        the whole set), other scalars are averaged over examples. Each figure is a float32
        value, as Python's shortest decimal for it, so the same number is printed, logged
        and stored everywhere."""
        owner = f"Model {self.name!r}.evaluate"
        check_sizes(owner, batch_size=batch_size)
        data = fit_data(owner, self.inputs, self.targets, x, y)
        self.require_eval_graph()
        self.eval_metrics.reset()
        count = 0
        for batch in self.batches(data, batch_size=batch_size).epoch(0):
            count += self.steps.test_one(batch)
        if count == 0:
            raise ValueError("Model.evaluate got no data (zero batches).")
        return self.eval_metrics.results()

    def predict(self, x: Any, *, batch_size: int | None = None) -> Any:
        """The outputs for every example of ``x`` (an array for one input, a list in order
        or a dict by name, or batches), concatenated into numpy arrays."""
        check_sizes(f"Model {self.name!r}.predict", batch_size=batch_size)
        fn = self.steps.predict
        parts: list[Any] = []
        batches = as_batches(fit_data("", [], [], x, None), self.inputs, batch_size=batch_size)
        for batch in batches.epoch(0):
            out = fn(*batch)
            parts.append(out if isinstance(out, tuple) else (out,))
        if not parts:
            raise ValueError("Model.predict got no data (zero batches).")
        arrays = tuple(np.concatenate([p[i].numpy() for p in parts]) for i in range(len(parts[0])))
        return arrays[0] if len(arrays) == 1 else arrays
