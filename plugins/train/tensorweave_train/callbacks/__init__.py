"""The standard callbacks, each in the module of its concept.

``monitors`` (``EarlyStopping``, ``ReduceLROnPlateau``), ``stop_on_nan`` (``StopOnNaN``,
the one NaN guard), ``loggers`` (``CSVLogger``, ``TensorBoard``), ``progress`` (``Progress``,
the one progress display, and ``ProgressBar``), ``checkpoint`` (``CheckpointCallback``),
``interrupt`` (``InterruptToStop``), ``averages`` (``SwapEMAWeights``), ``scheduler``
(``LearningRateScheduler``). ``LambdaCallback`` and the ``Callback`` base are the loop's
(``loop.events``). Default priorities (lower runs first on the same event):
``InterruptToStop`` -200, ``StopOnNaN`` -100, ``LearningRateScheduler`` -50, monitors 10,
loggers 50, progress 60, ``SwapEMAWeights`` 90, checkpoint 100 (last, so it saves what the
others decided). Names are imported on first use.

>>> from tensorweave_train.callbacks import EarlyStopping
>>> EarlyStopping(patience=2).patience
2
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import tensorweave as tw

if TYPE_CHECKING:
    from tensorweave_train.callbacks.averages import SwapEMAWeights
    from tensorweave_train.callbacks.checkpoint import CheckpointCallback
    from tensorweave_train.callbacks.interrupt import InterruptToStop
    from tensorweave_train.callbacks.loggers import CSVLogger, TensorBoard
    from tensorweave_train.callbacks.monitors import EarlyStopping, Monitor, ReduceLROnPlateau
    from tensorweave_train.callbacks.progress import Progress, ProgressBar
    from tensorweave_train.callbacks.scheduler import LearningRateScheduler
    from tensorweave_train.callbacks.stop_on_nan import StopOnNaN
    from tensorweave_train.loop.events import LambdaCallback

_EXPORTS = {
    "CheckpointCallback": "tensorweave_train.callbacks.checkpoint",
    "InterruptToStop": "tensorweave_train.callbacks.interrupt",
    "CSVLogger": "tensorweave_train.callbacks.loggers",
    "TensorBoard": "tensorweave_train.callbacks.loggers",
    "EarlyStopping": "tensorweave_train.callbacks.monitors",
    "Monitor": "tensorweave_train.callbacks.monitors",
    "ReduceLROnPlateau": "tensorweave_train.callbacks.monitors",
    "Progress": "tensorweave_train.callbacks.progress",
    "ProgressBar": "tensorweave_train.callbacks.progress",
    "StopOnNaN": "tensorweave_train.callbacks.stop_on_nan",
    "LambdaCallback": "tensorweave_train.loop.events",
    "SwapEMAWeights": "tensorweave_train.callbacks.averages",
    "LearningRateScheduler": "tensorweave_train.callbacks.scheduler",
}
__all__ = [
    "CheckpointCallback",
    "InterruptToStop",
    "CSVLogger",
    "TensorBoard",
    "EarlyStopping",
    "Monitor",
    "ReduceLROnPlateau",
    "Progress",
    "ProgressBar",
    "StopOnNaN",
    "LambdaCallback",
    "SwapEMAWeights",
    "LearningRateScheduler",
]

__getattr__, __dir__ = tw.lazy_exports(__name__, _EXPORTS, base="")
