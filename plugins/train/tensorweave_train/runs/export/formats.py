"""Export formats: the ``exporters`` kind (``Exporter``: a class writing one artifact), what
an exporter converts (``ExportRequest``), the installed formats (``export_formats``) and
the lookup of one by name (``exporter``), whose errors are ``ExportError``.

>>> exporter("savedmodel").artifact
'model'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import tensorflow as tf

import tensorweave as tw

if TYPE_CHECKING:
    from tensorweave_train.loop.model import Model

__all__ = [
    "QUANTIZATIONS",
    "ExportError",
    "ExportRequest",
    "Exporter",
    "export_formats",
    "exporter",
    "formats_text",
]

QUANTIZATIONS = ("dynamic", "float16", "int8")


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
