"""What the layers above the loop do for it: save, export and describe a model, show progress.

The loop is the lowest layer of the pack and imports nothing above it. ``Model.save``,
``Model.export`` and ``Model.get_config`` are run directories, SavedModels and job configs:
the ``runs`` layer's functions (``runs.saving``, ``runs.export``); the progress display
``Model.train`` gives its ``Trainer`` is a callback (``callbacks.progress``). The model
reaches them through the ``Services`` the package root provides here (``provide``), each
imported on first use; a program may provide its own.

>>> services().__class__.__name__
'PackServices'
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

__all__ = ["Services", "provide", "services"]


class Services(Protocol):
    """The functions of the layers above the loop that ``Model`` delegates to."""

    def model_config(self, model: Any) -> dict[str, Any]:
        """``Model.get_config``: the job config that rebuilds ``model``."""
        ...

    def job_config(self, model: Any, sections: Mapping[str, Any]) -> dict[str, Any]:
        """A job config of ``model`` from its graph ``sections`` (for ``get_config``)."""
        ...

    def save_model(self, model: Any, path: str | Path, *, overwrite: bool = False) -> Path:
        """``Model.save``: ``model`` written as a run directory at ``path``."""
        ...

    def export_model(self, model: Any, path: str | Path, **kw: Any) -> Path:
        """``Model.export``: ``model`` in an export format (``runs.export.export_model``)."""
        ...

    def progress(self, verbose: int) -> Any:
        """The progress display (a ``Callback``) of ``Model.train(verbose=...)``."""
        ...


_provided: list[Services] = []


def provide(provided: Services) -> None:
    """Make ``provided`` the services every ``Model`` uses (the package root calls it)."""
    _provided[:] = [provided]


def services() -> Services:
    """The services provided (``provide``); a ``RuntimeError`` when none is."""
    if not _provided:
        raise RuntimeError(
            "tensorweave_train.loop.services: nothing provides saving, exporting and the "
            "progress display. Fix: import tensorweave_train (its root provides them)."
        )
    return _provided[0]
