"""tensorweave-mlflow: tensorweave trainings in MLflow's tracking server and UI.

- ``MLflowLogger.v1`` (``logger.py``), a callback of tensorweave-train: params from the filled
  config, metrics per step and per epoch, tags naming the packs that provided the components,
  the run's files and exported model as artifacts; it buffers through a server outage;
- ``tensorweave train CONFIG --mlflow URI`` (``hooks.py``): the logger with no code;
- ``tensorweave mlflow sync RUN`` (``resend.py``): sends what an outage left unsent.

Nothing needs importing: the callback loads by name. Public names load on first use.

>>> import tensorweave as tw
>>> "MLflowLogger.v1" in tw.registry("callbacks")
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import tensorweave as tw

if TYPE_CHECKING:  # the lazily imported names, for type checkers
    from tensorweave_mlflow.logger import MLflowLogger, MLflowUnreachableWarning
    from tensorweave_mlflow.outbox import Outbox
    from tensorweave_mlflow.resend import MLflowSyncError, sync

# Public name -> the submodule that defines it, imported on first use (PEP 562).
_EXPORTS = {
    "MLflowLogger": "logger",
    "MLflowUnreachableWarning": "logger",
    "Outbox": "outbox",
    "MLflowSyncError": "resend",
    "sync": "resend",
}

__all__ = ["MLflowLogger", "MLflowSyncError", "MLflowUnreachableWarning", "Outbox", "sync"]

__getattr__, __dir__ = tw.lazy_exports(__name__, _EXPORTS)
