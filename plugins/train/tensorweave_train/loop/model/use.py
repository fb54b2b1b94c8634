"""What a ``Model`` is used through once built: its compiled steps (``steps``), training,
evaluating and predicting on data (``runner``), and its config, saving, export and summary
(the layers above the loop, through ``loop.services``). ``Model`` takes these methods from
``ModelUse``; ``loop.model.core`` holds the graphs, the variables and the steps' maths."""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_train.loop.model_arguments import check_keras_keywords
from tensorweave_train.loop.services import services

if TYPE_CHECKING:
    from tensorweave_train.loop.data import Batches
    from tensorweave_train.loop.history import History
    from tensorweave_train.loop.model_running import Runner
    from tensorweave_train.loop.steps import Steps

__all__ = ["ModelUse"]


class ModelUse:
    """The methods of ``Model`` that run its compiled steps on data and hand it to the
    layers above the loop (a mixin: ``Model`` sets the attributes declared here)."""

    name: str
    steps: Steps
    runner: Runner
    inputs: tuple[tw.Layer, ...]
    outputs: tuple[tw.Layer, ...]
    targets: tuple[tw.Layer, ...]
    metrics: dict[str, tw.Layer]
    loss: tw.Layer | None

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
            known = list(inspect.signature(ModelUse.train).parameters)[1:-1]
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
