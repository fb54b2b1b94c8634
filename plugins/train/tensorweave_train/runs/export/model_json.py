"""``model.json``, beside every export: what it takes and gives (inputs, outputs, class
names), the provider of every component, the quantization and its measured accuracy
change, and its mark (``WRITTEN_BY``): ``check_output`` replaces only a directory so marked.

>>> providers({"@layers": "dense.v1", "@provider": "tensorweave 0.1.0"})
[{'path': '.', 'kind': 'layers', 'name': 'dense.v1', 'provider': 'tensorweave 0.1.0'}]
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

import tensorflow as tf

from tensorweave_train.runs.export.formats import ExportError

if TYPE_CHECKING:
    from tensorweave_train.loop.model import Model
    from tensorweave_train.runs.export.formats import ExportRequest

__all__ = ["MODEL_JSON", "WRITTEN_BY", "check_output", "describe", "providers"]

MODEL_JSON = "model.json"  # beside every export: what it takes and gives, and what made it
WRITTEN_BY = "tensorweave export"  # model.json's mark: only such a directory is overwritten
MODEL_JSON_FORMAT = 1


def providers(config: Any, where: str = "") -> list[dict[str, str]]:
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
                found += providers(value, f"{where}.{key}" if where else key)
    elif isinstance(config, (list, tuple)):
        for k, value in enumerate(config):
            found += providers(value, f"{where}[{k}]")
    return found


def installed_version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return ""


def check_output(path: Path, overwrite: bool) -> bool:
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


def describe(
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
        "providers": providers(config) if config is not None else [],
        "versions": {
            d: installed_version(d)
            for d in ("tensorweave", "tensorweave-train", "tensorflow")
            if installed_version(d)
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
