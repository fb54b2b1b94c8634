"""A ``Predictor`` = model + steps. Each step is ``(name, params)`` with ``name`` registered
in ``tw.processors`` (a function ``fn(value, **params)``), run by the one runner of saved
steps (``runs.processors.pipeline``). ``save(dir)`` writes ``dir/model`` (the SavedModel)
and ``dir/predictor.json`` (step names and params, input and output names);
``Predictor.load(dir)`` rebuilds the steps from the registry: no pickle. A predictor of a
run trained on image files carries how they were decoded (``images``: image size, color
mode, crop, interpolation) and takes image paths, decoded as in training.

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(n_units=2, name="x")
>>> from tensorweave_train import Model
>>> p = Predictor(Model(inputs=x, outputs=x * 2.0), postprocess=[("argmax.v1", {})])
>>> p(np.array([[1.0, 3.0], [4.0, 0.0]])).tolist()
[1, 0]
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import tensorflow as tf

from tensorweave_data import BadFileError, read_json
from tensorweave_train.runs.export.savedmodel import (
    SavedModelExporter,
    export_saved_model,
    signature_names,
)
from tensorweave_train.runs.processors import check_finite, names_files, pipeline, read_images

if TYPE_CHECKING:
    from tensorweave_train.loop.model import Model

__all__ = ["Predictor", "write_predictor_json"]

FORMAT = 1
_SPEC_KEYS = ("format", "model", "inputs", "preprocess", "postprocess")
_EXPORT_FIX = (
    "export the run again (tensorweave export RUN -o OUT), or restore the file from a backup"
)


def _check_steps(steps: Sequence[Any], where: str) -> list[tuple[str, dict[str, Any]]]:
    """Steps as ``(name, params)`` pairs whose params are plain data (saved as JSON)."""
    out = []
    for step in steps:
        if isinstance(step, str):
            name, params = step, {}
        elif isinstance(step, Mapping):  # {"@processors": name, **params}, as processors.json
            params = {k: v for k, v in step.items() if k != "@processors"}
            name = str(step["@processors"])
        else:
            name, params = step[0], dict(step[1])
        try:
            json.dumps(params)
        except TypeError as err:
            raise TypeError(
                f"Predictor {where} step {name!r}: params must be JSON-serialisable ({err}); "
                "steps are saved as names + params, never pickled."
            ) from err
        out.append((name, params))
    return out


class Predictor:
    """A model (live ``Model`` or loaded SavedModel) with pre/post-processing steps.

    Args:
        model: a ``Model``, or a loaded SavedModel (``Predictor.load`` passes one).
        preprocess: steps turning raw input into the model's input(s) (one array, or a
            tuple/dict for several inputs).
        postprocess: steps turning the model's output(s) into the final answer.
        images: how the run decoded its image files (``processors.image_decoding``): the
            predictor then also takes image paths (a file, a folder, a list), decoded so.
    """

    def __init__(
        self,
        model: Any,
        preprocess: Sequence[Any] = (),
        postprocess: Sequence[Any] = (),
        *,
        input_names: Sequence[str] | None = None,
        images: Mapping[str, Any] | None = None,
    ) -> None:
        self.model = model
        self.images = dict(images) if images is not None else None
        self.preprocess = _check_steps(preprocess, "preprocess")
        self.postprocess = _check_steps(postprocess, "postprocess")
        # registered names checked now, through the one runner of saved steps
        self._pre, self._post = (
            pipeline([{"@processors": n, **p} for n, p in s])
            for s in (self.preprocess, self.postprocess)
        )
        if input_names is None:
            input_names = signature_names(model.inputs)
        self.input_names = list(input_names)

    def run_model(self, value: Any) -> Any:
        """Run the model alone on already-preprocessed input."""
        if isinstance(value, dict):
            values = [value[n] for n in self.input_names]
        elif isinstance(value, tuple):
            values = list(value)
        else:
            values = [value]
        values = [_one_example_batched(v, r) for v, r in zip(values, self._input_ranks())]
        if hasattr(self.model, "predict"):
            return self.model.predict(tuple(values) if len(values) > 1 else values[0])
        dtypes = self._input_dtypes()
        tensors = [_as_tensor(v, d) for v, d in zip(values, dtypes)] if dtypes else values
        out = self.model.serve(*tensors)
        if isinstance(out, (tuple, list)):
            return tuple(np.asarray(o) for o in out)
        return np.asarray(out)

    def _input_ranks(self) -> list[int | None]:
        """The rank (batch axis included) of each model input, ``None`` where unknown."""
        if hasattr(self.model, "inputs"):
            return [len(i.shape) for i in self.model.inputs]
        specs = self._serve_specs()
        return [s.shape.rank for s in specs] if specs else [None] * len(self.input_names)

    def _serve_specs(self) -> list[Any]:
        """The input specs of a loaded SavedModel's ``serve`` function (empty if unknown)."""
        try:
            return list(self.model.serve.concrete_functions[0].structured_input_signature[0])
        except (AttributeError, IndexError, TypeError):
            return []

    def _input_dtypes(self) -> list[Any]:
        return [s.dtype for s in self._serve_specs()]

    def __call__(self, raw: Any, *, allow_nan: bool = False) -> Any:
        """Preprocess ``raw``, run the model, postprocess: the final output. Raw input
        holding NaN or infinite values is refused (``NonFiniteInputError``, with the count
        and the input), or predicted with one ``NonFiniteInputWarning`` under
        ``allow_nan=True``. A predictor with ``images`` takes image paths too."""
        if self.images is not None and (isinstance(raw, str) or names_files(raw)):
            raw = read_images(raw, self.images, owner="Predictor")[1]
        check_finite(raw, self.input_names, allow_nan=allow_nan)
        return self._post(self.run_model(self._pre(raw)))

    def save(self, directory: str | os.PathLike[str]) -> Path:
        """Write ``directory/model`` (SavedModel) and ``directory/predictor.json``."""
        if not hasattr(self.model, "inference_graph"):
            raise TypeError("Predictor.save needs a live tensorweave_train Model.")
        root = Path(directory)
        root.mkdir(parents=True, exist_ok=True)
        export_saved_model(self.model, root / "model")
        spec = {
            "format": FORMAT,
            "model": "model",
            "inputs": self.input_names,
            "outputs": [o.name for o in self.model.outputs],
            "preprocess": [{"name": n, "params": p} for n, p in self.preprocess],
            "postprocess": [{"name": n, "params": p} for n, p in self.postprocess],
        }
        if self.images is not None:
            spec["images"] = self.images
        (root / "predictor.json").write_text(json.dumps(spec, indent=1))
        return root

    @classmethod
    def load(cls, directory: str | os.PathLike[str]) -> Predictor:
        """Load a saved predictor: the SavedModel plus steps rebuilt from ``tw.processors``."""
        root = Path(directory)
        path = root / "predictor.json"
        spec = read_json(path, fix=_EXPORT_FIX)
        if not isinstance(spec, dict) or not all(k in spec for k in _SPEC_KEYS):
            raise BadFileError(
                path, f"it lacks one of {list(_SPEC_KEYS)}", _EXPORT_FIX, damaged=True
            )
        if spec.get("format") != FORMAT:
            raise BadFileError(
                path,
                f"has format {spec.get('format')}, not {FORMAT}",
                "export the run again with this version (tensorweave export RUN -o OUT)",
            )
        model = spec["model"]
        if not isinstance(model, str) or Path(model).name != model or model in ("", ".", ".."):
            raise BadFileError(
                path,
                f"its model {model!r} is not a folder name inside {root}",
                _EXPORT_FIX,
                damaged=True,
            )
        try:
            loaded = tf.saved_model.load(str(root / model))
        except (OSError, ValueError, IndexError, tf.errors.OpError) as err:
            text = (str(err).strip().splitlines() or [type(err).__name__])[0][:300]
            raise BadFileError(
                root / model,
                f"a SavedModel that cannot be loaded: {text}",
                _EXPORT_FIX,
                damaged=True,
            ) from None
        return cls(
            loaded,
            [(s["name"], s["params"]) for s in spec["preprocess"]],
            [(s["name"], s["params"]) for s in spec["postprocess"]],
            input_names=spec["inputs"],
            images=spec.get("images") if isinstance(spec.get("images"), dict) else None,
        )


def _one_example_batched(value: Any, rank: int | None) -> Any:
    """``value`` with a batch axis of one when it is one example (a rank below the input's,
    a scalar when the input's rank is unknown), as ``Run.predict`` takes it."""
    if isinstance(value, (tf.SparseTensor, tf.RaggedTensor)):
        return value
    ndim = np.ndim(value)
    if (rank is None and ndim == 0) or (rank is not None and ndim == rank - 1):
        return np.asarray(value)[None]
    return value


def _as_tensor(value: Any, dtype: tf.DType) -> Any:
    """``value`` as a tensor of the signature's ``dtype`` (numbers cast, as ``predict`` does)."""
    if isinstance(value, (tf.Tensor, tf.SparseTensor, tf.RaggedTensor)):
        return value
    array = np.asarray(value)
    if dtype.is_numpy_compatible and dtype != tf.string and array.dtype.kind in "biuf":
        array = array.astype(dtype.as_numpy_dtype)
    return tf.convert_to_tensor(array)


def write_predictor_json(model: Model, processors: Any, root: Path) -> None:
    """``predictor.json`` of a SavedModel export, as ``Predictor.save`` writes it."""
    from tensorweave_train.runs.processors import image_decoding

    predictor = Predictor(
        model,
        processors.preprocess,
        processors.postprocess,
        images=image_decoding(processors.info),
    )
    spec: dict[str, Any] = {
        "format": FORMAT,
        "model": SavedModelExporter.artifact,
        "inputs": predictor.input_names,
        "outputs": [o.name for o in model.outputs],
        "preprocess": [{"name": n, "params": p} for n, p in predictor.preprocess],
        "postprocess": [{"name": n, "params": p} for n, p in predictor.postprocess],
    }
    if predictor.images is not None:
        spec["images"] = predictor.images
    (root / "predictor.json").write_text(json.dumps(spec, indent=1))
