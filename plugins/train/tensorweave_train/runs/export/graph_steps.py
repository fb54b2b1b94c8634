"""The run's preprocessing inside the exported graph: the leading steps with a TensorFlow
form go in (``split_preprocessing``, ``with_preprocessing``), the rest stay outside with
why; ``raw_of`` maps processed inputs back to raw input (int8 calibration, measurements).

>>> import tensorflow as tf
>>> forward, inverse, _ = tf_step("scale.v1", {"factor": 2.0})
>>> float(forward(tf.constant(3.0))), float(inverse(6.0))
(6.0, 3.0)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import tensorflow as tf

from tensorweave_data import graph_form, graph_forms

if TYPE_CHECKING:
    from tensorweave_train.loop.model import Model

__all__ = ["raw_of", "split_preprocessing", "tf_step", "with_preprocessing"]


def tf_step(name: str, params: Mapping[str, Any]) -> tuple[Any, Any, Any] | str:
    """``(forward, inverse, raw_spec_of)`` of a preprocessing step that has a TensorFlow
    form: ``forward`` maps a batch tensor as the step does, ``inverse`` maps a processed numpy
    batch back to raw input (for int8 calibration and the measurements), ``raw_spec_of``
    the spec of the step's input from the spec of its output. A string says why not.
    ``forward`` is the data pack's one TensorFlow form (``tensorweave_data.graph_forms``)."""
    if params.get("field") is not None:
        return "it works on one field of a record"
    base = name.split(":")[-1]
    if base == "tokenize_chars.v1":
        return "it reads strings, which the exported runtimes do not take"
    if base == "reshape.v1" and not params.get("batched"):
        return "it reshapes one example, not a batch"
    form = graph_form(base, params)
    if isinstance(form, str) or base in graph_forms.RANDOM:
        return "it has no TensorFlow form" if isinstance(form, str) else "it is training-only"
    forward = lambda t: form(t, None)  # noqa: E731  # the data pack's one TensorFlow form
    if base in ("normalize.v1", "scale.v1"):
        if base == "normalize.v1":
            std = float(params.get("std", 1.0))
            mul, add = 1.0 / std, -float(params.get("mean", 0.0)) / std
        else:
            mul, add = float(params.get("factor", 1.0)), float(params.get("offset", 0.0))
        if mul == 0:
            return "its factor is 0"
        return (
            forward,
            lambda a: ((np.asarray(a, np.float64) - add) / mul).astype(np.float32),
            lambda spec: tf.TensorSpec(spec.shape, tf.float32, spec.name),
        )
    if base == "cast.v1":
        return (
            forward,
            lambda a: np.asarray(a).astype(np.float32),
            lambda spec: tf.TensorSpec(spec.shape, tf.float32, spec.name),
        )
    if base == "reshape.v1":
        shape = [int(d) for d in params["shape"]]
        size = int(np.prod(shape)) if -1 not in shape else None
        return (
            forward,
            lambda a: np.asarray(a).reshape(len(a), -1),
            lambda spec: tf.TensorSpec([None, size], spec.dtype, spec.name),
        )
    if base == "one_hot.v1":
        return (
            forward,
            lambda a: np.argmax(np.asarray(a), axis=-1).astype(np.int64),
            lambda spec: tf.TensorSpec(spec.shape[:-1], tf.int64, spec.name),
        )
    return "it has no inverse for calibration"


def split_preprocessing(
    model: Model, processors: Any, specs: list[tf.TensorSpec], images: Any
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[Any], list[tf.TensorSpec]]:
    """The run's preprocessing split in two: the leading steps with a TensorFlow form (they
    go inside the exported graph) and the rest (``outside``, each with why); the forward
    and inverse functions of the inside steps, and the raw input specs they take."""
    steps = [dict(s) for s in (getattr(processors, "preprocess", None) or [])]
    inside: list[dict[str, Any]] = []
    forms: list[Any] = []
    outside: list[dict[str, Any]] = []
    if images is not None:
        outside.append(
            {
                "step": "image decoding",
                "params": dict(images),
                "why": "the exported graph takes decoded pixels; decode and resize the "
                "image files as model.json's image_decoding says",
            }
        )
    for k, step in enumerate(steps):
        name = str(step.get("@processors", ""))
        params = {p: v for p, v in step.items() if not p.startswith("@")}
        form = tf_step(name, params) if len(specs) == 1 else "the model has several inputs"
        if isinstance(form, str):
            outside += [
                {
                    "step": str(s.get("@processors", "")),
                    "params": {p: v for p, v in s.items() if not p.startswith("@")},
                    "why": form if j == 0 else "it follows a step that stays outside",
                }
                for j, s in enumerate(steps[k:])
            ]
            break
        inside.append({"step": name, "params": params})
        forms.append(form)
    raw = list(specs)
    for _, _, raw_spec_of in reversed(forms):
        raw = [raw_spec_of(raw[0])]
    return inside, outside, forms, raw


def with_preprocessing(inner: Any, forms: list[Any], raw: list[tf.TensorSpec]) -> Any:
    """``inner`` (the serving function) after the inside steps, over the raw input."""

    def serve(value: tf.Tensor) -> Any:
        for forward, _, _ in forms:
            value = forward(value)
        return inner(value)

    return tf.function(serve, input_signature=raw)


def raw_of(forms: list[Any], values: list[np.ndarray]) -> list[np.ndarray]:
    """Processed inputs back to raw input through the inside steps' inverses."""
    value = values[0]
    for _, inverse, _ in reversed(forms):
        value = inverse(value)
    return [value]
