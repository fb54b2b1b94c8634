"""What a cell specification names: a registered name (resolved by
``tw.resolve("cells", ...)``, so third-party cells work and ``"LSTMCell"`` means the latest
version) or a cell class or factory; and the per-use options a built cell takes.

``make_cell`` (in ``tensorweave_rnn.stacked``, beside the ``StackedCell`` a list builds)
turns any specification into a built cell.

>>> cell_factory("GRUCell.v1", who="demo").__name__
'GRUCell'
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

import tensorweave as tw
from tensorweave_rnn.contract import CellContractError, static_problems

__all__ = ["CellSpec", "PER_USE", "cell_factory", "per_use"]

CellSpec: TypeAlias = "str | Callable[..., tw.Layer] | tw.Layer | Sequence[Any]"
PER_USE = ("training",)


def cell_factory(spec: Any, who: str) -> Callable[..., tw.Layer]:
    """The factory a name or callable stands for."""
    if isinstance(spec, str):
        factory: Callable[..., tw.Layer] = tw.resolve("cells", spec, owner=who, option="cell")
        return factory
    if callable(spec) and not isinstance(spec, tw.Layer):
        problems = static_problems(spec)
        if problems:
            raise CellContractError(f"{who}: {'; '.join(problems)}.")
        return spec
    raise TypeError(
        f"{who}: cell= must be a registered cell name (e.g. 'LSTMCell.v1'), a cell factory, "
        f"a built cell or a list of these; got {type(spec).__name__}."
    )


def per_use(cell: tw.Layer, options: dict[str, Any]) -> tw.Layer:
    """``cell`` itself, or a ``reuse_with`` of it taking the per-use options it accepts."""
    wanted = {k: v for k, v in options.items() if k in PER_USE and v is not None}
    if not wanted:
        return cell
    accepted = _accepted(type(cell), wanted)
    if not accepted:
        return cell
    return cell.reuse_with(*cell.inputs, **accepted)


def _accepted(cls: type, options: dict[str, Any]) -> dict[str, Any]:
    try:
        params = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        return {}
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return dict(options)
    return {k: v for k, v in options.items() if k in params}
