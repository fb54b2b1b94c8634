"""What ``tensorweave serve REFERENCE`` serves, and loading it.

``resolve_source(reference, format=..., workdir=...)`` runs once, before the server starts:
a run directory or ``MODEL@STAGE`` (resolved by the train pack's ``Run.open``, through the
store pack's hook) is exported into ``workdir`` (``savedmodel``: ``Run.export``, the same
export as ``tensorweave export``; ``onnx``: the ``onnx`` exporter of the ``exporters``
kind, by name, when a pack registers it); a path is an export already: a ``Predictor``
directory (``predictor.json`` + SavedModel), a bare SavedModel, an ``.onnx`` file or a
folder holding one. The ``Source`` it returns is plain JSON (each worker process loads it:
``load_served``).

>>> Source("/tmp/x", "savedmodel", "digits").to_json()["name"]
'digits'
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import tensorweave as tw
from tensorweave_deploy.serving.backends import ONNX_INSTALL, OnnxBackend, SavedModelBackend
from tensorweave_deploy.serving.errors import ServeError
from tensorweave_deploy.serving.model import ServedModel

__all__ = ["Source", "resolve_source", "load_served", "FORMATS", "NAME_PATTERN"]

FORMATS = ("savedmodel", "onnx")
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


@dataclass
class Source:
    """A served export: its ``path``, ``format``, served ``name``, the steps around it
    (``preprocess``/``postprocess`` blocks; ``None``: the predictor's own) and metadata."""

    path: str
    format: str
    name: str
    preprocess: list[dict[str, Any]] | None = None
    postprocess: list[dict[str, Any]] | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _name(given: str | None, default: str) -> str:
    name = given if given is not None else re.sub(r"[^A-Za-z0-9._-]", "-", default).strip("-.")
    if not name or not NAME_PATTERN.match(name):
        raise ServeError(
            f"tensorweave serve: {name!r} cannot be a model name in a URL. Fix: give --name "
            "NAME with letters, digits, '.', '_' or '-' (e.g. --name digits)."
        )
    return name


def _run_name(run_dir: Path) -> str:
    """The run's ``[run] name`` in its ``config.json`` (``digits-mlp``), else its folder's name."""
    try:
        config = json.loads((run_dir / "config.json").read_text(encoding="utf-8"))
        name = config.get("run", {}).get("name") if isinstance(config, dict) else None
    except (OSError, ValueError, AttributeError):
        name = None
    return str(name) if isinstance(name, str) and name else run_dir.name


def _onnx_file(folder: Path) -> Path:
    found = sorted(folder.glob("*.onnx"))
    if len(found) != 1:
        raise ServeError(
            f"tensorweave serve --format onnx: {folder} holds {len(found)} .onnx files, not one. "
            "Fix: pass the .onnx file itself, or the folder `tensorweave export --format onnx` wrote."
        )
    return found[0]


def _read_model_json(folder: Path) -> dict[str, Any]:
    path = folder / "model.json"
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ServeError(
            f"tensorweave serve: cannot read {path}: {err}. Fix: export again."
        ) from None
    return data if isinstance(data, dict) else {}


def _steps(value: Any) -> list[dict[str, Any]] | None:
    """Steps as ``{"@processors": name, **params}`` blocks (from ``processors.json``'s form,
    ``predictor.json``'s ``{"name", "params"}`` form, or plain names)."""
    if not isinstance(value, list):
        return None
    out = []
    for step in value:
        if isinstance(step, str):
            out.append({"@processors": step})
        elif isinstance(step, dict) and "@processors" in step:
            out.append(dict(step))
        elif isinstance(step, dict) and "name" in step:
            out.append({"@processors": step["name"], **dict(step.get("params") or {})})
    return out


def _onnx_source(
    path: Path, name: str, run_steps: tuple[Any, Any] | None, meta: dict[str, Any]
) -> Source:
    file = path if path.is_file() else _onnx_file(path)
    info = _read_model_json(file.parent)
    # the steps model.json says stay outside the exported graph; else the run's own
    pre = _steps(info.get("outside", info.get("preprocess")))
    post = _steps(info.get("postprocess"))
    if run_steps is not None:
        pre = pre if pre is not None else run_steps[0]
        post = post if post is not None else run_steps[1]
    return Source(
        str(file), "onnx", name, pre or [], post or [], {**meta, "model.json": info or None}
    )


def _need_exporter(fmt: str) -> None:
    """The ``fmt`` exporter of the ``exporters`` kind, or a ``ServeError`` saying how to
    install it."""
    try:
        tw.resolve("exporters", fmt, owner="tensorweave serve", option="--format")
    except (tw.TensorweaveError, LookupError, KeyError) as err:
        raise ServeError(
            f"tensorweave serve --format {fmt}: no {fmt!r} exporter is installed (the exporters "
            f"kind has none: {str(err).splitlines()[0][:200]}). Fix: {ONNX_INSTALL}, or serve the "
            "SavedModel (--format savedmodel)."
        ) from None


def resolve_source(
    reference: str, *, format: str = "savedmodel", name: str | None = None, workdir: Path
) -> Source:
    """The export ``reference`` names, exported into ``workdir`` first when it is a run
    (see the module docstring); ``ServeError``/the train pack's ``RunDirError`` say what
    is wrong."""
    if format not in FORMATS:
        raise ServeError(f"tensorweave serve: --format {format!r} is not one of {list(FORMATS)}.")
    path = Path(reference)
    if (path.is_file() and path.suffix == ".onnx") or (
        path.is_dir() and format == "onnx" and any(path.glob("*.onnx"))
    ):
        return _onnx_source(
            path,
            _name(name, path.stem if path.is_file() else path.name),
            None,
            {"source": reference},
        )
    if path.is_dir() and (path / "predictor.json").is_file():
        return Source(
            str(path), "savedmodel", _name(name, path.name), metadata={"source": reference}
        )
    if path.is_dir() and (path / "saved_model.pb").is_file():
        return Source(
            str(path), "savedmodel", _name(name, path.name), [], [], {"source": reference}
        )
    if format == "onnx":
        _need_exporter("onnx")  # before TensorFlow loads: a missing format answers fast
    import tensorweave_train as twt

    run = twt.Run.open(reference)  # a run directory, or MODEL@STAGE through the store
    processors = run.processors
    by_store = "@" in reference and not path.exists()
    default = reference.split("@", 1)[0] if by_store else _run_name(run.path)
    served = _name(name, Path(default).name)
    keep = ("class_names", "vocab", "raw_input", "n_classes")
    meta = {
        "source": reference,
        "run": str(run.path),
        **{k: v for k, v in processors.info.items() if k in keep},
    }
    if by_store:
        meta["model"], meta["version"] = reference.split("@", 1)
    if format == "onnx":
        from tensorweave.cli import main as cli_main

        out = workdir / "onnx"
        code = cli_main(["export", reference, "--format", "onnx", "-o", str(out)])
        if code != 0:
            raise ServeError(
                f"tensorweave serve: exporting {reference} to ONNX failed (exit code {code}, above)."
            )
        return _onnx_source(
            out, served, (list(processors.preprocess), list(processors.postprocess)), meta
        )
    where = run.export(workdir / "savedmodel")
    return Source(str(where), "savedmodel", served, metadata=meta)


def load_served(source: Source, *, max_instances: int = 1024) -> ServedModel:
    """``source`` loaded in this process: its backend and steps."""
    path = Path(source.path)
    if source.format == "onnx":
        backend: Any = OnnxBackend(path)
        return ServedModel(
            source.name,
            backend,
            source.preprocess or [],
            source.postprocess or [],
            dict(source.metadata),
            max_instances,
        )
    if (path / "predictor.json").is_file():
        import tensorweave_train as twt

        predictor = twt.Predictor.load(path)
        outputs = json.loads((path / "predictor.json").read_text(encoding="utf-8")).get("outputs")
        backend = SavedModelBackend(predictor.model, path / "model", predictor.input_names, outputs)
        pre = _steps([{"name": n, "params": p} for n, p in predictor.preprocess]) or []
        post = _steps([{"name": n, "params": p} for n, p in predictor.postprocess]) or []
    else:
        import tensorflow as tf

        try:
            loaded = tf.saved_model.load(str(path))
        except (OSError, ValueError, tf.errors.OpError) as err:
            raise ServeError(
                f"tensorweave serve: {path} is not a SavedModel that loads: {str(err)[:300]}"
            ) from None
        backend, pre, post = SavedModelBackend(loaded, path), [], []
    return ServedModel(source.name, backend, pre, post, dict(source.metadata), max_instances)
