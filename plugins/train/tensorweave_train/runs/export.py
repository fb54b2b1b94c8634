"""Export a trained model in a registered format (``exporters``: ``savedmodel`` here, ``onnx``
and ``litert`` from tensorweave-deploy), and a ``Predictor`` that carries registered pre- and
post-processing steps with a SavedModel.

``export_model(model, path, format=...)`` is the one way out (``Model.export``,
``tensorweave export``): it looks the format up by name in ``tw.exporters``, checks the
quantization asked for and the output path, writes the artifact and ``model.json`` (inputs,
outputs, class names, the provider of every component, the quantization and its measured
accuracy change) into a temporary directory beside ``path`` and renames it into place:
nothing half-written. A component the format cannot express fails the export, before
anything is written, naming the layer, its op, the format and the plugin providing it.

``export_saved_model(model, path)`` compiles the inference graph (``tw.compile``, batch
``None``) and saves it with the variables: loading needs only
``tf.saved_model.load(path)``; call ``loaded.serve(x, ...)`` (positional, in input order)
or the ``serving_default`` signature (keyword arguments named after the inputs; outputs
``output_0``, ``output_1``…).

A ``Predictor`` = model + steps. Each step is ``(name, params)`` with ``name`` registered in
``tw.processors`` (a function ``fn(value, **params)``), run by the one runner of saved steps
(``runs.processors.pipeline``). ``save(dir)`` writes
``dir/model`` (the SavedModel) and ``dir/predictor.json`` (step names and params, input and
output names); ``Predictor.load(dir)`` rebuilds the steps from the registry: no pickle. A
predictor of a run trained on image files carries how they were decoded (``images``: image
size, color mode, crop, interpolation) and takes image paths, decoded as in training.

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
import re
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import tensorflow as tf

import tensorweave as tw
from tensorweave_data import BadFileError, read_json
from tensorweave_train.runs.processors import check_finite, names_files, pipeline, read_images

if TYPE_CHECKING:
    from tensorweave_train.loop.model import Model

__all__ = [
    "export_saved_model",
    "export_model",
    "export_formats",
    "exporter",
    "Exporter",
    "ExportRequest",
    "ExportError",
    "SavedModelExporter",
    "MODEL_JSON",
    "Predictor",
    "signature_names",
]

FORMAT = 1
_SPEC_KEYS = ("format", "model", "inputs", "preprocess", "postprocess")
_EXPORT_FIX = (
    "export the run again (tensorweave export RUN -o OUT), or restore the file from a backup"
)


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
        if hasattr(self.model, "predict"):
            return self.model.predict(tuple(values) if len(values) > 1 else values[0])
        tensors = [tf.convert_to_tensor(v) for v in values]
        out = self.model.serve(*tensors)
        if isinstance(out, (tuple, list)):
            return tuple(np.asarray(o) for o in out)
        return np.asarray(out)

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


# -- export formats ------------------------------------------------------------------------
MODEL_JSON = "model.json"  # beside every export: what it takes and gives, and what made it
WRITTEN_BY = "tensorweave export"  # model.json's mark: only such a directory is overwritten
MODEL_JSON_FORMAT = 1
QUANTIZATIONS = ("dynamic", "float16", "int8")
DEFAULT_CALIBRATION = 100  # int8 representative examples when none is said


class ExportError(tw.TensorweaveError):
    """An export that cannot be made; nothing was written at the output path."""

    exit_code = 2


class Exporter(Protocol):
    """An export format, as registered in ``tw.exporters`` (a class; one instance per export).

    ``artifact`` is the file (or folder) name it writes inside the export directory;
    ``quantizations`` the ``quantize`` values it takes (empty: none); ``raw_inputs`` whether
    the steps of the run's preprocessing that have a TensorFlow form go inside the exported
    graph. ``write(request, path)`` writes the artifact at ``path`` (a converter that cannot
    express an op raises an error with an ``ops`` attribute, the op types, so that the
    export names the layers emitting them); ``load(path)`` returns a function running the
    artifact in its own runtime: a list of arrays in input order -> one array per output.
    """

    artifact: str
    quantizations: tuple[str, ...]
    raw_inputs: bool

    def write(self, request: ExportRequest, path: Path) -> None: ...

    def load(self, path: Path) -> Callable[[list[np.ndarray]], list[np.ndarray]]: ...


@dataclass
class ExportRequest:
    """What an exporter converts: ``function`` (a ``tf.function`` over ``input_specs``, in
    order, returning a dict of the outputs by name, ``output_names`` order), the model (for
    its variables), the quantization asked for, and for ``int8`` the representative inputs
    (``calibration``: one array per input, examples along the first axis)."""

    model: Model
    format: str
    function: Any
    input_specs: list[tf.TensorSpec]
    output_names: list[str]
    quantize: str | None = None
    calibration: list[np.ndarray] | None = None
    inside: list[dict[str, Any]] = field(default_factory=list)
    outside: list[dict[str, Any]] = field(default_factory=list)

    def representative(self) -> Any:
        """Batches of one example each, as ``TFLiteConverter.representative_dataset`` takes."""
        data = self.calibration or []
        n = len(data[0]) if data else 0
        for k in range(n):
            yield [
                np.asarray(d[k : k + 1], dtype=s.dtype.as_numpy_dtype)
                for d, s in zip(data, self.input_specs)
            ]


def export_formats() -> list[tuple[str, str]]:
    """``(format, "distribution version")`` of every installed export format, sorted.

    >>> ("savedmodel", "tensorweave-train 0.1.0") in export_formats()
    True
    """
    found = []
    for info in tw.registry("exporters").infos():
        found.append((info.name, f"{info.distribution} {info.version}".strip()))
    return sorted(found)


def formats_text() -> str:
    """The installed formats, one a line, with the distribution providing each."""
    rows = export_formats()
    width = max((len(n) for n, _ in rows), default=0)
    return "\n".join(f"  {n.ljust(width)}  ({d})" for n, d in rows) or "  (none)"


def exporter(format: str) -> Any:
    """An instance of the exporter registered as ``format`` (``tw.exporters``); an unknown
    name is an ``ExportError`` listing the installed formats."""
    names = [n for n, _ in export_formats()]
    if format not in names and format not in tw.registry("exporters").names():
        raise ExportError(
            f"no export format {format!r} is installed. Installed formats:\n{formats_text()}\n"
            "Fix: choose one of them, or install the pack providing the format "
            "(pip install 'tensorweave-deploy[onnx,litert]' for onnx and litert)."
        )
    return tw.resolve("exporters", format, owner="export")()


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


def _serving_function(model: Model, specs: list[tf.TensorSpec], names: list[str]) -> Any:
    graph = model.inference_graph

    def outputs_by_name(*values: Any) -> dict[str, tf.Tensor]:
        out = graph.run(*values)
        outs = out if isinstance(out, tuple) else (out,)
        return dict(zip(names, outs))

    return tw.compile(
        graph,
        body=outputs_by_name,
        input_signature=specs,
        owner="export",
        precision=model.precision,
    ).function


def _inputs_of(model: Model, data: Any, what: str) -> list[np.ndarray]:
    """``data`` (one array, a list in input order, or a dict by input name) as one array per
    model input."""
    names = [i.name for i in model.inputs]
    if isinstance(data, Mapping):
        missing = [n for n in names if n not in data]
        if missing:
            raise ExportError(
                f"the {what} data has no field {missing[0]!r} for the model's input; fields: "
                f"{sorted(data)}. Fix: give one array per input, by name."
            )
        return [np.asarray(data[n]) for n in names]
    values = list(data) if isinstance(data, (list, tuple)) else [data]
    return [np.asarray(v) for v in values]


def _providers(config: Any, where: str = "") -> list[dict[str, str]]:
    """Every component of a filled config: ``{"path", "kind", "name", "provider"}``."""
    found: list[dict[str, str]] = []
    if isinstance(config, Mapping):
        kinds = [
            k
            for k in config
            if isinstance(k, str) and k.startswith("@") and k not in ("@provider", "@versions")
        ]
        if kinds and "@provider" in config:
            found.append(
                {
                    "path": where or ".",
                    "kind": kinds[0][1:],
                    "name": str(config[kinds[0]]),
                    "provider": str(config["@provider"]),
                }
            )
        for key, value in config.items():
            if isinstance(key, str) and not key.startswith("@"):
                found += _providers(value, f"{where}.{key}" if where else key)
    elif isinstance(config, (list, tuple)):
        for k, value in enumerate(config):
            found += _providers(value, f"{where}[{k}]")
    return found


def _installed_version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return ""


def _layer_provider(layer: tw.Layer) -> str:
    """The distribution (and version) providing a layer's class, from its module."""
    top = type(layer).__module__.split(".", 1)[0]
    for dist in metadata.packages_distributions().get(top, []):
        return f"{dist} {_installed_version(dist)}".strip()
    return top


def _registered_as(layer: tw.Layer) -> tuple[str, str]:
    """The registered name of a layer's class and its provider (``"", module's dist``)."""
    cls = type(layer)
    target = f"{cls.__module__}:{cls.__qualname__}"
    for info in tw.registry("layers").infos():
        if info.target == target:
            return info.name, f"{info.distribution} {info.version}".strip()
    return "", _layer_provider(layer)


def _ops_by_layer(model: Model, specs: list[tf.TensorSpec]) -> list[tuple[tw.Layer, set[str]]]:
    """The op types each layer of the inference graph emits, traced layer by layer."""
    graph = model.inference_graph
    found: list[tuple[tw.Layer, set[str]]] = []

    def traced(*args: Any) -> Any:
        values: dict[int, Any] = {id(i): a for i, a in zip(graph.inputs, args)}
        last = None
        for node in graph.nodes:
            if id(node) in values:
                continue
            fg = tf.compat.v1.get_default_graph()
            before = len(fg.get_operations())
            ins = [values[id(i)] for i in node.inputs if id(i) in values]
            values[id(node)] = last = node.compute(*ins) if node.inputs else node.compute()
            found.append((node, {op.type for op in fg.get_operations()[before:]}))
        return last

    try:
        tf.function(traced, input_signature=specs).get_concrete_function()
    except Exception:
        pass
    return found


def _unsupported(
    model: Model, request: ExportRequest, err: BaseException, config: Any
) -> ExportError:
    """The one error of an op the format lacks: the layer, its op, the format, the plugin."""
    ops = list(getattr(err, "ops", []) or [])
    nodes = (config or {}).get("model", {}).get("nodes", {}) if isinstance(config, Mapping) else {}
    lines = []
    specs = [tf.TensorSpec(i.shape, i.dtype) for i in model.inputs]  # the model's own
    for layer, types in _ops_by_layer(model, specs):
        for op in ops:
            if op in types:
                short = layer.name.rsplit("/", 1)[-1]
                node = nodes.get(short, {}) if isinstance(nodes, Mapping) else {}
                registered, provider = _registered_as(layer)
                if isinstance(node, Mapping) and node.get("@layers"):
                    registered = str(node["@layers"])
                    provider = str(node.get("@provider") or provider)
                component = registered or type(layer).__name__
                lines.append(
                    f"  layer {short!r} ({component}, from {provider}) emits the TensorFlow op "
                    f"{op}, which the {request.format} converter cannot express"
                )
    if not lines:
        named = ", ".join(ops) or "an op"
        lines.append(f"  {named} (no single layer of the model emits it alone)")
    return ExportError(
        f"cannot export to {request.format}:\n" + "\n".join(dict.fromkeys(lines)) + "\n"
        f"Nothing was written. Fix: export to another format (tensorweave export --format "
        "lists them), or replace the layer with one the format supports (docs/deploy.md has "
        f"the table of layers and formats). Converter: {str(err).splitlines()[0][:300] if str(err) else type(err).__name__}"
    )


def _check_output(path: Path, overwrite: bool) -> bool:
    """Whether ``path`` holds an export to replace; an existing path is refused unless
    ``overwrite`` and it is a tensorweave export (its ``model.json`` says so)."""
    if not path.exists() and not path.is_symlink():
        return False
    if path.is_dir() and not any(path.iterdir()):
        return True  # an empty folder: taken as it is
    if not overwrite:
        raise ExportError(
            f"{path} exists; an export never replaces a path unasked. Fix: choose another "
            "output path (-o PATH), or pass --overwrite (overwrite=True) to replace an "
            "earlier export."
        )
    marked = False
    if path.is_dir() and (path / MODEL_JSON).is_file():
        try:
            marked = json.loads((path / MODEL_JSON).read_text()).get("written_by") == WRITTEN_BY
        except (OSError, ValueError, AttributeError):
            marked = False
    if not marked:
        raise ExportError(
            f"{path} exists and is not a tensorweave export (no {MODEL_JSON} written by "
            f"{WRITTEN_BY!r} in it), so --overwrite does not replace it. Fix: choose another "
            "output path, or remove it yourself."
        )
    return True


def _spec_json(name: str, shape: Any, dtype: Any) -> dict[str, Any]:
    dims = list(shape) if shape is not None else None
    return {
        "name": name,
        "shape": [d if d is None else int(d) for d in dims] if dims is not None else None,
        "dtype": tf.as_dtype(dtype).name,
    }


def _accuracy(outputs: np.ndarray, target: np.ndarray) -> float | None:
    if outputs.ndim < 2 or outputs.shape[-1] < 2 or not np.issubdtype(target.dtype, np.integer):
        return None
    return float(np.mean(np.argmax(outputs, axis=-1) == target.reshape(outputs.shape[:-1])))


def _measured(
    model: Model,
    run_artifact: Callable[[list[np.ndarray]], list[np.ndarray]],
    validation: Mapping[str, Any],
    raw: list[np.ndarray] | None,
) -> dict[str, Any]:
    """The exported artifact against ``model.predict`` on the validation data."""
    inputs = _inputs_of(model, validation, "validation")
    expected = model.predict(inputs if len(inputs) > 1 else inputs[0])
    expected = list(expected) if isinstance(expected, (list, tuple)) else [expected]
    got = run_artifact(raw if raw is not None else inputs)
    result: dict[str, Any] = {
        "examples": len(inputs[0]),
        "max_abs_difference": float(max(np.max(np.abs(g - e)) for g, e in zip(got, expected))),
    }
    targets = [t.name for t in model.targets if t.name in validation]
    if len(targets) == 1:
        target = np.asarray(validation[targets[0]])
        before, after = _accuracy(expected[0], target), _accuracy(got[0], target)
        if before is not None and after is not None:
            result.update(
                accuracy=after,
                accuracy_float32=before,
                accuracy_change=round(after - before, 6),
            )
    return result


def export_model(
    model: Model,
    path: str | os.PathLike[str],
    *,
    format: str = "savedmodel",
    quantize: str | None = None,
    calibration: Any = None,
    validation: Mapping[str, Any] | None = None,
    overwrite: bool = False,
    config: Mapping[str, Any] | None = None,
    processors: Any = None,
) -> Path:
    """Write ``model`` in ``format`` as the directory ``path``: the artifact
    (``exporter.artifact``) and ``model.json``; returns ``path``.

    Args:
        format: a registered export format (``export_formats()``).
        quantize: ``"dynamic"``, ``"float16"`` or ``"int8"``, if the format takes it.
        calibration: ``int8``'s representative inputs (an array, a list in input order or a
            dict by input name; examples along the first axis).
        validation: data (inputs and targets by name) on which a quantized export's outputs
            and accuracy are measured against ``model.predict`` (written in model.json).
        overwrite: replace ``path`` if it is an earlier tensorweave export.
        config, processors: the run's filled config (the providers in model.json) and its
            ``Processors`` (a SavedModel keeps them in ``predictor.json``).

    >>> import tempfile, tensorweave as tw
    >>> from tensorweave_train import Model
    >>> x = tw.Input(n_units=2, name="x")
    >>> where = export_model(Model(inputs=x, outputs=x * 2.0), Path(tempfile.mkdtemp()) / "out")
    >>> sorted(p.name for p in where.iterdir())
    ['model', 'model.json']
    """
    out = Path(path)
    fmt = exporter(format)
    takes: tuple[str, ...] = tuple(fmt.quantizations)
    if quantize is not None:
        if quantize not in QUANTIZATIONS and quantize not in takes:
            raise ExportError(
                f"unknown quantization {quantize!r}; choose one of {', '.join(QUANTIZATIONS)}"
            )
        if quantize not in takes:
            offers = [
                f"{n} ({', '.join(exporter(n).quantizations)})"
                for n, _ in export_formats()
                if n != format and exporter(n).quantizations
            ]
            raise ExportError(
                f"the {format} format has no {quantize} quantization"
                + (f" (it takes: {', '.join(takes)})" if takes else " (it takes none)")
                + ". Fix: export without --quantize"
                + (f", or to a format that has it: {'; '.join(offers)}" if offers else "")
                + "."
            )
    if calibration is not None and quantize != "int8":
        raise ExportError(
            "calibration data is for int8 quantization only. Fix: add --quantize int8, or "
            "drop --calibration."
        )
    if quantize == "int8" and calibration is None:
        raise ExportError(
            "int8 quantization needs representative data (calibration=...). Fix: give "
            "calibration inputs, or export a run (tensorweave export RUN --quantize int8 "
            "takes them from its training split)."
        )
    replace = _check_output(out, overwrite)
    model.build()
    names = signature_names(model.inputs)
    specs = [tf.TensorSpec(i.shape, i.dtype, n) for i, n in zip(model.inputs, names)]
    output_names = signature_names(model.outputs)
    function = _serving_function(model, specs, output_names)
    calibrate = _inputs_of(model, calibration, "calibration") if calibration is not None else None
    inside: list[dict[str, Any]] = []
    outside: list[dict[str, Any]] = []
    forms: list[Any] = []
    if processors is not None:
        from tensorweave_train.runs.processors import image_decoding

        images = image_decoding(getattr(processors, "info", {}) or {})
        inside, outside, forms, raw = _inside_graph(model, processors, specs, images)
        if not fmt.raw_inputs:  # the format keeps the steps in Python (predictor.json)
            outside = [
                {
                    "step": str(s.get("@processors", "")),
                    "params": {p: v for p, v in s.items() if not p.startswith("@")},
                    "why": "the format keeps the run's steps in predictor.json",
                }
                for s in (processors.preprocess or [])
            ]
            inside, forms = [], []
        elif forms:
            specs = raw
            function = _with_preprocessing(function, forms, specs)
            calibrate = _raw_of(forms, calibrate) if calibrate is not None else None
    request = ExportRequest(
        model=model,
        format=format,
        function=function,
        input_specs=specs,
        output_names=output_names,
        quantize=quantize,
        calibration=calibrate,
        inside=inside,
        outside=outside,
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    temp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=out.parent))
    temp.chmod(0o755)  # mkdtemp's 0700 is for the temporary name only: an export is shared
    try:
        try:
            fmt.write(request, temp / fmt.artifact)
        except Exception as err:
            if getattr(err, "ops", None):  # the converter lacks these op types
                raise _unsupported(model, request, err, config) from err
            raise
        spec = _model_json(model, request, fmt, config, processors)
        (temp / MODEL_JSON).write_text(json.dumps(spec, indent=1))  # load() may read it
        if quantize is not None and validation is not None:
            processed = _inputs_of(model, validation, "validation")
            spec["quantization"]["validation"] = _measured(
                model,
                fmt.load(temp / fmt.artifact),
                validation,
                _raw_of(forms, processed) if forms else None,
            )
        if processors is not None and format == "savedmodel":
            _write_predictor(model, processors, temp)
        (temp / MODEL_JSON).write_text(json.dumps(spec, indent=1))
        if replace:
            old = out.with_name(f".{out.name}.replaced")
            shutil.rmtree(old, ignore_errors=True)
            os.replace(out, old)
            os.replace(temp, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(temp, out)
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    return out


def _write_predictor(model: Model, processors: Any, root: Path) -> None:
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


def _model_json(
    model: Model, request: ExportRequest, fmt: Any, config: Any, processors: Any
) -> dict[str, Any]:
    """What ``model.json`` says of an export (see the module docstring)."""
    info = dict(getattr(processors, "info", {}) or {})
    inside = list(request.inside)
    outside = list(request.outside)
    spec: dict[str, Any] = {
        "written_by": WRITTEN_BY,
        "format_version": MODEL_JSON_FORMAT,
        "format": request.format,
        "artifact": fmt.artifact,
        "inputs": [_spec_json(s.name or "", s.shape, s.dtype) for s in request.input_specs],
        "outputs": [
            _spec_json(n, o.shape, o.dtype) for n, o in zip(request.output_names, model.outputs)
        ],
        "preprocess": {"inside": inside, "outside": outside},
        "postprocess": list(getattr(processors, "postprocess", []) or []),
        "quantization": {"mode": request.quantize},
        "providers": _providers(config) if config is not None else [],
        "versions": {
            d: _installed_version(d)
            for d in ("tensorweave", "tensorweave-train", "tensorflow")
            if _installed_version(d)
        },
    }
    if request.quantize == "int8" and request.calibration is not None:
        spec["quantization"]["calibration_examples"] = len(request.calibration[0])
    for key in ("class_names", "vocab", "vocab_size", "n_classes", "image_decoding"):
        if key in info:
            spec[key] = info[key]
    labels = [s for s in spec["postprocess"] if isinstance(s, Mapping) and "names" in s]
    if "class_names" not in spec and labels:
        spec["class_names"] = list(labels[0]["names"])
    if isinstance(config, Mapping) and isinstance(config.get("@versions"), Mapping):
        spec["versions"].update(config["@versions"])
    return spec


def export_trained_run(
    run: Any,
    out: str | os.PathLike[str],
    *,
    format: str = "savedmodel",
    quantize: str | None = None,
    calibration: int | None = None,
    overwrite: bool = False,
) -> Path:
    """A trained ``Run`` (``Run.open(reference)``: a directory, or a reference a plugin
    resolves, ``digits@production``) exported by ``export_model``: ``tensorweave export``. Quantizing reads the run's dataset
    as ``tensorweave train`` builds it: ``int8`` calibrates on the first ``calibration``
    examples of its training split (``DEFAULT_CALIBRATION`` when ``None``), and the accuracy
    change is measured on its validation split."""
    exporter(format)  # an unknown format: named before the run is read
    if calibration is not None and calibration < 1:
        raise ExportError(f"--calibration must be a positive number of examples, got {calibration}")
    _check_output(Path(out), overwrite)  # before the model is built: a taken path answers fast
    calibrate: Any = None
    validation: Any = None
    if quantize is not None:
        job = run.job()
        model = job.model
        if quantize == "int8":
            train = job.split("train")
            size = len(next(iter(train.values())))
            n = min(DEFAULT_CALIBRATION, size) if calibration is None else calibration
            if n > size:
                raise ExportError(
                    f"--calibration {n} asks for more examples than the training split of "
                    f"{run.path} has ({size}). Fix: --calibration {size} or fewer."
                )
            calibrate = {k: v[:n] for k, v in train.items()}
        elif calibration is not None:
            calibrate = calibration  # refused by export_model: calibration is for int8
        try:
            validation = job.split("valid")
        except (KeyError, AttributeError):
            validation = None
    else:
        if calibration is not None:
            raise ExportError(
                "--calibration is for int8 quantization only. Fix: add --quantize int8, or "
                "drop --calibration."
            )
        model = run.model()
    return export_model(
        model,
        out,
        format=format,
        quantize=quantize,
        calibration=calibrate,
        validation=validation,
        overwrite=overwrite,
        config=run.config(),
        processors=run.processors,
    )


# -- preprocessing inside the exported graph -----------------------------------------------
def _tf_step(name: str, params: Mapping[str, Any]) -> tuple[Any, Any, Any] | str:
    """``(forward, inverse, raw_spec_of)`` of a preprocessing step that has a TensorFlow
    form: ``forward`` maps a batch tensor as the step does, ``inverse`` maps a processed numpy
    batch back to raw input (for int8 calibration and the measurements), ``raw_spec_of``
    the spec of the step's input from the spec of its output. A string says why not."""
    if params.get("field") is not None:
        return "it works on one field of a record"
    base = name.split(":")[-1]
    if base in ("normalize.v1", "scale.v1"):
        dtype = tf.as_dtype(params.get("dtype", "float32"))
        if base == "normalize.v1":
            mul, add = (
                1.0 / float(params.get("std", 1.0)),
                -float(params.get("mean", 0.0)) / float(params.get("std", 1.0)),
            )
        else:
            mul, add = float(params.get("factor", 1.0)), float(params.get("offset", 0.0))
        if mul == 0:
            return "its factor is 0"
        return (
            lambda t: tf.cast(t, dtype) * mul + add,
            lambda a: ((np.asarray(a, np.float64) - add) / mul).astype(np.float32),
            lambda spec: tf.TensorSpec(spec.shape, tf.float32, spec.name),
        )
    if base == "cast.v1":
        dtype = tf.as_dtype(params["dtype"])
        return (
            lambda t: tf.cast(t, dtype),
            lambda a: np.asarray(a).astype(np.float32),
            lambda spec: tf.TensorSpec(spec.shape, tf.float32, spec.name),
        )
    if base == "reshape.v1" and params.get("batched"):
        shape = [int(d) for d in params["shape"]]
        size = int(np.prod(shape)) if -1 not in shape else None
        return (
            lambda t: tf.reshape(t, [-1, *shape]),
            lambda a: np.asarray(a).reshape(len(a), -1),
            lambda spec: tf.TensorSpec([None, size], spec.dtype, spec.name),
        )
    if base == "one_hot.v1":
        n = int(params["num_classes"])
        return (
            lambda t: tf.one_hot(tf.cast(t, tf.int64), n, dtype=tf.float32),
            lambda a: np.argmax(np.asarray(a), axis=-1).astype(np.int64),
            lambda spec: tf.TensorSpec(spec.shape[:-1], tf.int64, spec.name),
        )
    if base == "tokenize_chars.v1":
        return "it reads strings, which the exported runtimes do not take"
    return "it has no TensorFlow form"


def _inside_graph(
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
        form = _tf_step(name, params) if len(specs) == 1 else "the model has several inputs"
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


def _with_preprocessing(inner: Any, forms: list[Any], raw: list[tf.TensorSpec]) -> Any:
    """``inner`` (the serving function) after the inside steps, over the raw input."""

    def serve(value: tf.Tensor) -> Any:
        for forward, _, _ in forms:
            value = forward(value)
        return inner(value)

    return tf.function(serve, input_signature=raw)


def _raw_of(forms: list[Any], values: list[np.ndarray]) -> list[np.ndarray]:
    """Processed inputs back to raw input through the inside steps' inverses."""
    value = values[0]
    for _, inverse, _ in reversed(forms):
        value = inverse(value)
    return [value]
