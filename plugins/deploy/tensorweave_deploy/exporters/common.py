"""What the deploy pack's exporters share: importing a converter named by the extra that
installs it, and the error of ops a converter cannot express.

>>> err = UnsupportedOpsError("litert", ["Lgamma"], "converter text")
>>> err.ops, err.format
(['Lgamma'], 'litert')
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

import tensorweave as tw

__all__ = ["MissingConverterError", "UnsupportedOpsError", "need"]


class MissingConverterError(tw.TensorweaveError, ImportError):
    """A format's converter or runtime is not installed; says the pip command."""

    exit_code = 2

    def __init__(self, format: str, module: str) -> None:
        super().__init__(
            f"the {format} export format needs {module}, which is not installed. Fix: pip "
            f"install 'tensorweave-deploy[{format}]'"
        )
        self.format, self.module = format, module


class UnsupportedOpsError(tw.TensorweaveError):
    """TensorFlow ops a converter cannot express (``ops``: their types); the export turns it
    into one error naming the layers that emit them."""

    def __init__(self, format: str, ops: Sequence[str], detail: str) -> None:
        super().__init__(
            f"the {format} converter cannot express the TensorFlow ops {', '.join(ops)}: {detail}"
        )
        self.format, self.ops = format, list(ops)


def need(module: str, format: str) -> Any:
    """``import module``, or a ``MissingConverterError`` naming ``format``'s extra."""
    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise MissingConverterError(format, module.split(".")[0].replace("_", "-")) from err
