"""The ``cells`` kind, which this pack introduces, with the cell contract as its check.

Declared in the pack's ``pyproject.toml`` (entry-point group ``tensorweave.kinds``), so a
cell any installed pack offers is checked against the contract (``contract.static_problems``)
when it loads or registers. Light on purpose: no TensorFlow is imported here.

>>> cells.name, cells.check(lambda x, *state, n_units, **options: None) is None
('cells', True)
"""

from __future__ import annotations

import tensorweave as tw
from tensorweave_rnn.contract import cell_problem

__all__ = ["cells"]

cells = tw.Kind(
    "cells",
    doc="recurrent cells: tw.Layer classes built as Cell(x, *state, n_units=...) with step()",
    check=cell_problem,
)
