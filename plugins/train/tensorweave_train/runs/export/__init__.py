"""Export a trained model in a registered format (``exporters``: ``savedmodel`` here, ``onnx``
and ``litert`` from tensorweave-deploy), and a ``Predictor`` that carries registered pre- and
post-processing steps with a SavedModel.

- ``formats``: the ``exporters`` kind (``Exporter``, ``ExportRequest``), the installed
  formats (``export_formats``) and the lookup of one by name (``exporter``); ``ExportError``;
- ``savedmodel``: ``export_saved_model`` and the ``savedmodel`` format
  (``SavedModelExporter``), with the serving signature's names (``signature_names``);
- ``predictor``: ``Predictor`` (a model and its steps; ``predictor.json``);
- ``writer``: ``export_model``, the one way out (``Model.export``, ``tensorweave export``):
  format and quantization checks, the output path, temporary directory then rename;
- ``model_json``: what ``model.json`` says of an export, and the output-path check
  (``check_output``: only an earlier export is replaced);
- ``graph_steps``: the run's preprocessing that goes inside the exported graph;
- ``unsupported``: the error naming the layer whose op a format cannot express;
- ``trained_run``: ``export_trained_run`` (``tensorweave export RUN``, ``Run.export``).

Names are imported on first use.

>>> from tensorweave_train.runs.export import export_formats
>>> ("savedmodel", "tensorweave-train 0.1.0") in export_formats()
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import tensorweave as tw

if TYPE_CHECKING:
    from tensorweave_train.runs.export.formats import (
        QUANTIZATIONS,
        Exporter,
        ExportError,
        ExportRequest,
        export_formats,
        exporter,
        formats_text,
    )
    from tensorweave_train.runs.export.model_json import MODEL_JSON, WRITTEN_BY
    from tensorweave_train.runs.export.predictor import Predictor
    from tensorweave_train.runs.export.savedmodel import (
        SavedModelExporter,
        export_saved_model,
        signature_names,
    )
    from tensorweave_train.runs.export.trained_run import DEFAULT_CALIBRATION, export_trained_run
    from tensorweave_train.runs.export.writer import export_model

_EXPORTS = {
    "QUANTIZATIONS": "formats",
    "ExportError": "formats",
    "Exporter": "formats",
    "ExportRequest": "formats",
    "export_formats": "formats",
    "exporter": "formats",
    "formats_text": "formats",
    "MODEL_JSON": "model_json",
    "WRITTEN_BY": "model_json",
    "Predictor": "predictor",
    "SavedModelExporter": "savedmodel",
    "export_saved_model": "savedmodel",
    "signature_names": "savedmodel",
    "DEFAULT_CALIBRATION": "trained_run",
    "export_trained_run": "trained_run",
    "export_model": "writer",
}
__all__ = [
    "QUANTIZATIONS",
    "ExportError",
    "Exporter",
    "ExportRequest",
    "export_formats",
    "exporter",
    "formats_text",
    "MODEL_JSON",
    "WRITTEN_BY",
    "Predictor",
    "SavedModelExporter",
    "export_saved_model",
    "signature_names",
    "DEFAULT_CALIBRATION",
    "export_trained_run",
    "export_model",
]

__getattr__, __dir__ = tw.lazy_exports(__name__, _EXPORTS)
