"""The cell contract, checked on every ``cells`` component from any provider.

``static_problems`` judges a cell class or factory without building it; it is the check of
the ``cells`` kind this pack declares (``tensorweave_rnn.kinds``), so a cell of any pack
that visibly cannot honour the contract is refused by name when it loads or registers,
instead of failing deep inside an ``RNN`` loop. ``check_cell`` checks a built cell.

>>> import tensorweave as tw
>>> class NoStep(tw.Layer):
...     def __init__(self, x, *state, n_units, name=None, share_state_with=None):
...         super().__init__(x, shape=(None, n_units), name=name)
>>> static_problems(NoStep)
['NoStep: a cell must define step(x, *states) -> (output, [new_states])']
>>> cell_problem(NoStep)
'NoStep: a cell must define step(x, *states) -> (output, [new_states])'
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import tensorweave as tw

__all__ = ["CellContractError", "cell_problem", "check_cell", "static_problems"]


class CellContractError(tw.TensorweaveError, TypeError):
    """A cell does not satisfy the cell contract (see ``tensorweave_rnn``)."""


def _label(component: Any) -> str:
    name = str(getattr(component, "__qualname__", type(component).__name__))
    return name.rsplit("<locals>.", 1)[-1]


def static_problems(component: Any) -> list[str]:
    """What is wrong with a cell class or factory, judged without building it."""
    label = _label(component)
    problems: list[str] = []
    if inspect.isclass(component) and not callable(getattr(component, "step", None)):
        problems.append(f"{label}: a cell must define step(x, *states) -> (output, [new_states])")
    target: Callable[..., Any] = component.__init__ if inspect.isclass(component) else component
    try:
        params = list(inspect.signature(target).parameters.values())
    except (TypeError, ValueError):  # builtins without a signature: judge them when built
        return problems
    kinds = {p.kind for p in params}
    names = {p.name for p in params}
    if inspect.Parameter.VAR_POSITIONAL not in kinds:
        problems.append(
            f"{label}: a cell is built as Cell(x, *previous_state, n_units=...); its "
            "constructor takes no *previous_state"
        )
    if inspect.Parameter.VAR_KEYWORD not in kinds:
        missing = [k for k in ("n_units", "name", "share_state_with") if k not in names]
        if missing:
            problems.append(f"{label}: the constructor must accept {', '.join(missing)}=")
    return problems


def cell_problem(component: Any) -> str | None:
    """The ``cells`` kind's check: what is wrong with ``component`` (``None``: nothing)."""
    problems = static_problems(component)
    return "; ".join(problems) if problems else None


def check_cell(cell: Any, who: str = "RNN") -> None:
    """Raise ``CellContractError`` unless ``cell`` (a built cell) honours the contract."""
    label = f"{type(cell).__name__} {getattr(cell, 'name', '')!r}".strip()
    fix = (
        "\n  Fix: a cell is a tw.Layer built as Cell(x, *previous_state, n_units=...) with "
        "state_size (a list of widths) and step(x, *states) -> (output, [new_states]); see "
        "the tensorweave_rnn docstring."
    )
    if not isinstance(cell, tw.Layer):
        raise CellContractError(
            f"{who}: the cell factory returned a {type(cell).__name__}, not a tw.Layer.{fix}"
        )
    size = getattr(cell, "state_size", None)
    if (
        not isinstance(size, (list, tuple))
        or not size
        or not all(isinstance(w, int) and not isinstance(w, bool) and w > 0 for w in size)
    ):
        raise CellContractError(
            f"{who}: cell {label} has state_size={size!r}; expected a non-empty list of "
            f"positive ints such as [n] or [n, n].{fix}"
        )
    if not callable(getattr(cell, "step", None)):
        raise CellContractError(f"{who}: cell {label} has no step(x, *states) method.{fix}")
    if len(cell.shape) != 2 or cell.shape[-1] is None:
        raise CellContractError(
            f"{who}: cell {label} has output shape {cell.shape}; expected (None, n_units).{fix}"
        )


def check_step(cell: Any, out: Any, new_states: Any, who: str = "RNN") -> None:
    """Raise ``CellContractError`` if one ``step`` result does not match ``state_size``."""
    label = f"{type(cell).__name__} {cell.name!r}"
    if not isinstance(new_states, (list, tuple)) or len(new_states) != len(cell.state_size):
        got = len(new_states) if isinstance(new_states, (list, tuple)) else type(new_states)
        raise CellContractError(
            f"{who}: cell {label}.step returned {got} new state(s), but its state_size is "
            f"{list(cell.state_size)}. Fix: return (output, [one tensor per state])."
        )
    for i, (s, w) in enumerate(zip(new_states, cell.state_size, strict=True)):
        if s.shape.rank != 2 or (s.shape[-1] is not None and s.shape[-1] != w):
            raise CellContractError(
                f"{who}: cell {label}.step returned state {i} of shape {s.shape}, but "
                f"state_size[{i}] is {w} (expected (batch, {w}))."
            )
    if out.shape.rank != 2 or (out.shape[-1] is not None and out.shape[-1] != cell.shape[-1]):
        raise CellContractError(
            f"{who}: cell {label}.step returned an output of shape {out.shape}, but the cell's "
            f"shape is {cell.shape}."
        )
