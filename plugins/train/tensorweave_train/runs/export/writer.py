"""``export_model(model, path, format=...)``: the one way out (``Model.export``,
``tensorweave export``). It looks the format up by name in ``tw.exporters``, checks the
quantization asked for and the output path, writes the artifact and ``model.json`` into a
temporary directory beside ``path`` and renames it into place: nothing half-written. A
component the format cannot express fails the export, before anything is written."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import tensorflow as tf

import tensorweave as tw
from tensorweave_train.runs.export.formats import (
    QUANTIZATIONS,
    ExportError,
    ExportRequest,
    export_formats,
    exporter,
)
from tensorweave_train.runs.export.graph_steps import (
    raw_of,
    split_preprocessing,
    with_preprocessing,
)
from tensorweave_train.runs.export.model_json import MODEL_JSON, check_output, describe
from tensorweave_train.runs.export.predictor import write_predictor_json
from tensorweave_train.runs.export.savedmodel import signature_names
from tensorweave_train.runs.export.unsupported import unsupported_error

if TYPE_CHECKING:
    from tensorweave_train.loop.model import Model

__all__ = ["export_model"]


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
    replace = check_output(out, overwrite)
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
        inside, outside, forms, raw = split_preprocessing(model, processors, specs, images)
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
            function = with_preprocessing(function, forms, specs)
            calibrate = raw_of(forms, calibrate) if calibrate is not None else None
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
                raise unsupported_error(model, request, err, config) from err
            raise
        spec = describe(model, request, fmt, config, processors)
        (temp / MODEL_JSON).write_text(json.dumps(spec, indent=1))  # load() may read it
        if quantize is not None and validation is not None:
            processed = _inputs_of(model, validation, "validation")
            spec["quantization"]["validation"] = _measured(
                model,
                fmt.load(temp / fmt.artifact),
                validation,
                raw_of(forms, processed) if forms else None,
            )
        if processors is not None and format == "savedmodel":
            write_predictor_json(model, processors, temp)
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
