"""Keras's ``Model`` methods that tensorweave spells otherwise (``KERAS_METHODS``), and the
error ``Model`` answers them with (``KerasSpellingError``).

>>> KERAS_METHODS["fit"].startswith("use model.train(")
True
"""

from __future__ import annotations

import tensorweave as tw

__all__ = ["KERAS_METHODS", "KerasSpellingError"]


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
