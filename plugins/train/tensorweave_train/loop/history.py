"""``History``: what ``Model.train`` returns, as a list of epoch records and as Keras's.

It is a list with one dict per finished epoch (``{"epoch": 1.0, "step": ..., "loss": ...,
"val_loss": ...}``; ``state`` is the loop's final ``TrainState``), and, as Keras's
``History``: ``history`` (a dict of lists: ``loss``, ``val_loss``, each metric,
``learning_rate``), ``epoch`` (the epoch numbers) and ``params``. Epochs are numbered from
1, as the progress display, ``log.csv`` and TensorBoard's epoch axis number them.

>>> h = History([{"epoch": 1.0, "step": 4.0, "loss": 0.5}, {"epoch": 2.0, "step": 8.0, "loss": 0.25}])
>>> h.history, h.epoch
({'loss': [0.5, 0.25]}, [1, 2])
"""

from __future__ import annotations

from typing import Any

__all__ = ["History"]


class History(list):  # type: ignore[type-arg]
    """One dict of values per finished epoch; ``state`` is the loop's final ``TrainState``."""

    state: Any
    params: dict[str, Any]

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.params = {}

    @property
    def history(self) -> dict[str, list[float]]:
        """Keras's ``History.history``: every value by name, one entry per epoch."""
        out: dict[str, list[float]] = {}
        for record in self:
            for key, value in record.items():
                if key not in ("epoch", "step"):
                    out.setdefault(key, []).append(value)
        return out

    @property
    def epoch(self) -> list[int]:
        """The numbers of the finished epochs (from 1, as displayed and logged)."""
        return [int(r["epoch"]) for r in self]
