"""``Runner``: a ``Model`` run on data: ``train``, ``evaluate``, ``predict``.

The part of a ``Model`` that takes data in every form ``loop.data`` reads, checks the sizes
(``loop.model_arguments``) and runs the compiled steps (``loop.steps``) over it: ``train``
through a ``Trainer`` (epochs, callbacks, validation, resume), ``evaluate`` streaming the
figures of the whole data, ``predict`` concatenating the outputs. A ``Model`` holds one
(``model.runner``, as it holds its ``Steps``) and its ``train``, ``evaluate``, ``predict``
and ``batches`` call it; the runner reads the model through ``Runnable``.

>>> import numpy as np, tensorflow as tf, tensorweave as tw
>>> from tensorweave_train.loop.model import Model
>>> x = tw.Input(n_units=1, name="x")
>>> y = tw.Lambda(lambda a: 2 * a, x, name="y")
>>> m = Model(inputs=x, outputs=y)
>>> isinstance(m.runner, Runner), m.predict(np.ones((3, 1), "float32"), batch_size=2).tolist()
(True, [[2.0], [2.0], [2.0]])
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import tensorflow as tf

import tensorweave as tw
from tensorweave_train.loop.data import Batches, as_batches
from tensorweave_train.loop.history import History
from tensorweave_train.loop.model_arguments import (
    check_ids,
    check_sizes,
    explained,
    fit_arguments,
    fit_data,
)
from tensorweave_train.loop.services import services
from tensorweave_train.loop.trainer import Trained, Trainer

if TYPE_CHECKING:
    from tensorweave_train.loop.metrics import Metrics

__all__ = ["Runnable", "Runner"]


class Runnable(Trained, Protocol):
    """What the runner reads of a ``Model``: what the ``Trainer`` reads, its data layers
    and its evaluation graph."""

    @property
    def inputs(self) -> tuple[tw.Layer, ...]: ...

    @property
    def targets(self) -> tuple[tw.Layer, ...]: ...

    @property
    def feeds(self) -> tuple[tw.Layer, ...]: ...

    @property
    def eval_metrics(self) -> Metrics: ...

    def require_eval_graph(self) -> tw.Graph: ...


@contextlib.contextmanager
def _explaining(owner: str, model: Any) -> Iterator[None]:
    """TensorFlow's errors of the compiled steps that ``explained`` knows (an id past a
    vocabulary, a label out of range, an op without a 16-bit kernel) re-raised as a
    ``tw.TensorweaveError`` naming the component and the fix."""
    try:
        yield
    except (tf.errors.InvalidArgumentError, tf.errors.NotFoundError) as error:
        better = explained(owner, error, model)
        if better is None:
            raise
        raise better from None


class Runner:
    """Runs ``model`` on data: ``train``, ``evaluate``, ``predict`` (documented as the
    model's methods)."""

    def __init__(self, model: Runnable) -> None:
        self.model = model

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
        """``Model.train``: the data and sizes checked, then a ``Trainer`` with
        ``callbacks`` and the progress display of ``verbose`` (given by ``loop.services``)."""
        model = self.model
        owner = f"Model {model.name!r}.train"
        data, validation, epochs = fit_arguments(
            model, x, y, epochs, batch_size, validation, validation_split
        )
        check_ids(owner, model, data)
        if validation is not None:
            check_ids(f"{owner} (validation)", model, fit_data(owner, [], [], validation, None))
        shown = [services().progress(verbose)] if verbose else []
        trainer = Trainer(model, callbacks=[*callbacks, *shown])
        try:
            with _explaining(owner, model):
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
        """``data`` as batches over the model's feeds (inputs, then targets)."""
        return as_batches(data, self.model.feeds, batch_size=batch_size, **kw)

    def evaluate(self, x: Any, y: Any = None, *, batch_size: int | None = None) -> dict[str, float]:
        """``Model.evaluate``: the figures of the whole data, streamed."""
        model = self.model
        owner = f"Model {model.name!r}.evaluate"
        check_sizes(owner, batch_size=batch_size)
        data = fit_data(owner, model.inputs, model.targets, x, y)
        model.require_eval_graph()
        check_ids(owner, model, data)
        model.eval_metrics.reset()
        count = 0
        with _explaining(owner, model):
            for batch in self.batches(data, batch_size=batch_size).epoch(0):
                count += model.steps.test_one(batch)
        if count == 0:
            raise ValueError("Model.evaluate got no data (zero batches).")
        return model.eval_metrics.results()

    def predict(self, x: Any, *, batch_size: int | None = None) -> Any:
        """``Model.predict``: the outputs of every example, concatenated."""
        check_sizes(f"Model {self.model.name!r}.predict", batch_size=batch_size)
        fn = self.model.steps.predict
        parts: list[Any] = []
        inputs = self.model.inputs
        batches = as_batches(fit_data("", [], [], x, None), inputs, batch_size=batch_size)
        with _explaining(f"Model {self.model.name!r}.predict", self.model):
            for batch in batches.epoch(0):
                out = fn(*batch)
                parts.append(out if isinstance(out, tuple) else (out,))
        if not parts:
            raise ValueError("Model.predict got no data (zero batches).")
        arrays = tuple(np.concatenate([p[i].numpy() for p in parts]) for i in range(len(parts[0])))
        return arrays[0] if len(arrays) == 1 else arrays
