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

The package: ``core`` (``Model``: graphs, variables, optimizers, the steps' maths),
``use`` (``ModelUse``: compiled steps, ``train``/``evaluate``/``predict``, ``get_config``,
``save``, ``export``, ``summary``), ``keras`` (Keras's spellings, ``KerasSpellingError``).
Names are imported on first use.

>>> import numpy as np, tensorflow as tf, tensorweave as tw
>>> x = tw.Input(n_units=1, name="x"); t = tw.Input(n_units=1, name="t")
>>> w = tf.Variable([[0.0]])
>>> y = tw.Lambda(lambda a: a @ w, x, variables=[w], name="y")
>>> loss = tw.Lambda(lambda a, b: tf.reduce_mean((a - b) ** 2), y, t, name="mse")
>>> from tensorweave_train import SGD
>>> from tensorweave_train.loop.model import Model
>>> m = Model(inputs=x, outputs=y, targets=t, loss=loss, optimizer=SGD(0.1))
>>> xs = np.ones((8, 1), "float32")
>>> _ = m.train(xs, 2 * xs, epochs=20, batch_size=4, shuffle=False, verbose=0)
>>> round(float(m.predict(xs[:1])[0, 0]), 2), m.train_trace_count
(2.0, 1)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import tensorweave as tw

if TYPE_CHECKING:
    from tensorweave_train.loop.model.core import Model
    from tensorweave_train.loop.model.keras import KERAS_METHODS, KerasSpellingError
    from tensorweave_train.loop.model.use import ModelUse

_EXPORTS = {
    "Model": "core",
    "KERAS_METHODS": "keras",
    "KerasSpellingError": "keras",
    "ModelUse": "use",
}
__all__ = ["KERAS_METHODS", "KerasSpellingError", "Model", "ModelUse"]

__getattr__, __dir__ = tw.lazy_exports(__name__, _EXPORTS)
