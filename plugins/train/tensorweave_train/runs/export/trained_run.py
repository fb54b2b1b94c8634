"""``export_trained_run``: a trained run exported (``tensorweave export``, ``Run.export``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tensorweave_train.runs.export.formats import ExportError, exporter
from tensorweave_train.runs.export.model_json import check_output
from tensorweave_train.runs.export.writer import export_model

__all__ = ["DEFAULT_CALIBRATION", "export_trained_run"]

DEFAULT_CALIBRATION = 100  # int8 representative examples when none is said


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
    check_output(Path(out), overwrite)  # before the model is built: a taken path answers fast
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
