"""The pack's pluggy plugin: records every training job in the store.

Implements the train pack's public hooks (``tensorweave_train_callbacks`` and the job
hooks) so that ``tensorweave train``/``resume`` write a run record; light at import.
"""

from __future__ import annotations

__all__: list[str] = []
