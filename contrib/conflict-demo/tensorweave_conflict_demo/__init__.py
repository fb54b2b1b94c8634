"""tensorweave-conflict-demo: a pack whose ``Linear.v1`` clashes with tensorweave-layers'.

With both installed, ``tw.layers["Linear.v1"]`` raises ``ComponentConflictError`` naming
both distributions; ``tw.layers["tensorweave-conflict-demo:Linear.v1"]`` and
``tw.layers["tensorweave-layers:Linear.v1"]`` pick one each, and
``TENSORWEAVE_BLOCK=tensorweave-conflict-demo`` removes this one altogether.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import tensorweave as tw

if TYPE_CHECKING:  # the lazily imported names, for type checkers
    from tensorweave_conflict_demo.linear import Linear

_EXPORTS = {"Linear": "linear"}

__all__ = ["Linear"]

__getattr__, __dir__ = tw.lazy_exports(__name__, _EXPORTS)
