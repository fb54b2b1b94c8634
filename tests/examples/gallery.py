"""Helpers of the gallery's smoke tests: where the examples are, a config example trained
at tiny size in this process, a script example imported as a module."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path
from types import ModuleType
from typing import Any

import tensorweave.config as twc

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def train_tiny(config: str, run_dir: Path, *overrides: str) -> dict[str, Any]:
    """The example config ``config`` (relative to ``examples/``, or a built-in job's name)
    trained one epoch on a few batches; returns the run's summary."""
    import tensorweave_train as twt

    tiny = ["--train.epochs=1", "--data.workers=0", *overrides]
    path = EXAMPLES / config if (EXAMPLES / config).is_file() else twt.config_path(config)
    cfg = twc.load(path, overrides=tiny)
    summary = twt.train_job(cfg, run_dir=run_dir, out=None, progress=False)
    assert [h["epoch"] for h in summary["history"]] == [1.0]
    assert all(math.isfinite(v) for v in summary["valid"].values())
    return summary


def script(path: str) -> ModuleType:
    """The example script ``path`` (relative to ``examples/``), imported (not run)."""
    where = EXAMPLES / path
    spec = importlib.util.spec_from_file_location(f"gallery_{where.stem}", where)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
