"""The ``savedmodel`` format: ``export_saved_model`` compiles a model's inference graph
(``tw.compile``, batch ``None``) and saves it with the variables. Loading needs only
``tf.saved_model.load(path)``; call ``loaded.serve(x, ...)`` (positional, in input order)
or the ``serving_default`` signature (keyword arguments named after the inputs, from
``signature_names``; outputs ``output_0``, ``output_1``...).

>>> import tensorweave as tw
>>> signature_names([tw.Input(n_units=1, name="a/1x"), tw.Input(n_units=1, name="1x")])
['input_1x', 'input_1x_1']
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import tensorflow as tf

import tensorweave as tw

if TYPE_CHECKING:
    from tensorweave_train.loop.model import Model
    from tensorweave_train.runs.export.formats import ExportRequest

__all__ = ["SavedModelExporter", "export_saved_model", "signature_names"]


def signature_names(layers: Sequence[tw.Layer]) -> list[str]:
    """Keyword names for the serving signature, one per input (valid identifiers, unique)."""
    names: list[str] = []
    for layer in layers:
        base = re.sub(r"\W", "_", layer.name.rsplit("/", 1)[-1]) or "input"
        if base[0].isdigit():
            base = f"input_{base}"
        name, k = base, 1
        while name in names:
            name, k = f"{base}_{k}", k + 1
        names.append(name)
    return names


def export_saved_model(model: Model, path: str | os.PathLike[str]) -> str:
    """Save ``model``'s inference graph as a SavedModel at ``path``; returns the path."""
    graph = model.inference_graph
    inputs = list(graph.inputs)
    names = signature_names(inputs)
    specs = [
        tf.SparseTensorSpec(i.shape, i.dtype) if i.sparse else tf.TensorSpec(i.shape, i.dtype, n)
        for i, n in zip(inputs, names)
    ]
    module = tf.Module()
    module.model_variables = list(model.variables)
    precision = model.precision  # float32 signature, layers in the model's precision
    module.serve = tw.compile(
        graph, input_signature=specs, owner="export", precision=precision
    ).function
    signatures = {}
    if not any(i.sparse for i in inputs):

        def outputs_by_name(*values: Any) -> dict[str, tf.Tensor]:
            out = graph.run(*values)
            outs = out if isinstance(out, tuple) else (out,)
            return {f"output_{k}": o for k, o in enumerate(outs)}

        serving = tw.compile(
            graph, body=outputs_by_name, input_signature=specs, owner="export", precision=precision
        )
        signatures["serving_default"] = serving.function.get_concrete_function()
    tf.saved_model.save(module, os.fspath(path), signatures=signatures or None)
    return os.fspath(path)


class SavedModelExporter:
    """The ``savedmodel`` format: a TensorFlow SavedModel (``export_saved_model``), served by
    TensorFlow alone; the run's processors stay in ``predictor.json`` beside it.

    >>> SavedModelExporter.artifact, SavedModelExporter.quantizations
    ('model', ())
    """

    artifact = "model"
    quantizations: tuple[str, ...] = ()
    raw_inputs = False

    def write(self, request: ExportRequest, path: Path) -> None:
        export_saved_model(request.model, path)

    def load(self, path: Path) -> Callable[[list[np.ndarray]], list[np.ndarray]]:
        loaded = tf.saved_model.load(str(path))  # kept: its variables live with it

        def run(values: list[np.ndarray]) -> list[np.ndarray]:
            out = loaded.serve(*[tf.constant(v) for v in values])  # positional, input order
            return [np.asarray(o) for o in (out if isinstance(out, (tuple, list)) else [out])]

        return run
