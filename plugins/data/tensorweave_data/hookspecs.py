"""Hooks the data pack publishes for other plugins.

``tensorweave_data_recorded(reference)`` lets a plugin that keeps records of runs (the
store) answer ``tensorweave data verify RUN`` for a run whose directory is gone: it returns
``{"run": name, "config": filled config, "manifest": the data manifest's JSON form or None}``
for a reference it knows, else ``None``.

>>> hasattr(tensorweave_data_recorded, "tensorweave_spec")
True
"""

from __future__ import annotations

from typing import Any

import tensorweave as tw

__all__ = ["tensorweave_data_recorded"]


@tw.hookspec
def tensorweave_data_recorded(reference: str) -> dict[str, Any] | None:
    """The record ``{"run", "config", "manifest"}`` of the run ``reference``, or ``None``."""
    raise NotImplementedError  # a spec: never called
