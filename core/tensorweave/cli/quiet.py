"""Keep TensorFlow's start-up noise off a command's output.

TensorFlow's native libraries log a handful of lines while they load (``All log messages
before absl::InitializeLog() ...``, oneDNN notices, ``Could not find cuda drivers``, CUDA
probe errors on a CPU machine) straight to the process's standard error, before
``TF_CPP_MIN_LOG_LEVEL`` is read. ``quiet_tensorflow_import`` installs an import hook
that, when ``tensorflow`` is first imported (by whichever command or plugin needs it),
sends file descriptor 2 to a temporary file for the duration of the import, then passes
on every line that is not such a known notice: real errors still show.

>>> noise("I0000 00:00:1.0   1 cudart_stub.cc:31] Could not find cuda drivers on your machine")
True
>>> noise("ValueError: something real")
False
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import importlib.util
import logging
import os
import re
import sys
import tempfile
from collections.abc import Iterator, Sequence
from types import ModuleType
from typing import Any

__all__ = ["quiet_tensorflow_import", "noise"]

_NOISE = re.compile(
    r"absl::InitializeLog|oneDNN custom operations|cudart_stub|cuda drivers|cuInit|"
    r"Unable to register cu(DNN|FFT|BLAS) factory|computation placer already registered|"
    r"TF-TRT Warning|rebuild TensorFlow with the appropriate compiler flags|"
    r"This TensorFlow binary is optimized|absl::InitializeLog"
)


def noise(line: str) -> bool:
    """Whether ``line`` is one of TensorFlow's known start-up notices."""
    return bool(_NOISE.search(line))


@contextlib.contextmanager
def _stderr_filtered() -> Iterator[None]:
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # no real stderr (embedded, captured): nothing to do
        yield
        return
    with tempfile.TemporaryFile(mode="w+b") as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            kept = [
                line
                for line in sink.read().decode(errors="replace").splitlines()
                if not noise(line)
            ]
            if kept:
                print("\n".join(kept), file=sys.stderr)


class _QuietLoader(importlib.abc.Loader):
    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        module: ModuleType | None = self._loader.create_module(spec)
        return module

    def exec_module(self, module: ModuleType) -> None:
        with _stderr_filtered():
            self._loader.exec_module(module)
        logging.getLogger("tensorflow").setLevel(logging.ERROR)


class _QuietFinder(importlib.abc.MetaPathFinder):
    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != "tensorflow":
            return None
        sys.meta_path.remove(self)  # once, and let the normal finders do the finding
        spec = importlib.util.find_spec(fullname)
        if spec is not None and spec.loader is not None:
            spec.loader = _QuietLoader(spec.loader)
        return spec


def quiet_tensorflow_import() -> None:
    """Filter TensorFlow's start-up notices when it is first imported (no-op if it is
    already imported, or if ``TENSORWEAVE_TF_LOGS=1`` asks to see everything)."""
    if "tensorflow" in sys.modules or os.environ.get("TENSORWEAVE_TF_LOGS") == "1":
        return
    if not any(isinstance(f, _QuietFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _QuietFinder())
