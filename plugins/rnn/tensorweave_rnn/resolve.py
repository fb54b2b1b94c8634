"""Turn a cell specification (name, factory, built cell or list of them) into a built cell.

``RNN``, ``Bidirectional`` and ``StackedCell`` accept a registered name (resolved by
``tw.resolve("cells", ...)``, so third-party cells work and ``"LSTMCell"`` means the latest
version), a
cell class or factory, an already built cell (its weights are shared), or a list of these
(a stack).

>>> cell = make_cell("GRUCell.v1", input_size=3, n_units=4, who="demo")
>>> type(cell).__name__, cell.state_size
('GRUCell', [4])
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

import tensorflow as tf

import tensorweave as tw
from tensorweave_rnn.contract import CellContractError, check_cell, static_problems

__all__ = ["CellSpec", "cell_factory", "make_cell", "per_use"]

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


def make_cell(
    spec: Any,
    *,
    input_size: int,
    n_units: int | Sequence[int] | None,
    who: str,
    dtype: tf.DType = tf.float32,
    options: dict[str, Any] | None = None,
) -> tw.Layer:
    """Build the cell ``spec`` for step inputs of width ``input_size`` and check it."""
    options = {k: v for k, v in (options or {}).items() if v is not None or k not in PER_USE}
    if isinstance(spec, tw.Layer):
        check_cell(spec, who)
        width = spec.inputs[0].shape[-1] if spec.inputs else None
        if width != input_size:
            raise tw.ShapeError(
                f"{who}: the given cell {spec.name!r} takes steps of width {width}, but the "
                f"sequence has {input_size} features."
            )
        return per_use(spec, options)
    x = tw.Input(n_units=input_size, dtype=dtype, name="step_input")
    if isinstance(spec, (list, tuple)):
        from tensorweave_rnn.stacked import StackedCell

        cell: tw.Layer = StackedCell(x, cells=list(spec), n_units=n_units, **options)
    else:
        if n_units is None or not isinstance(n_units, int):
            raise TypeError(f"{who}: n_units= must be an int for one cell, got {n_units!r}.")
        factory = cell_factory(spec, who)
        try:
            cell = factory(x, n_units=n_units, **options)
        except TypeError as err:
            label = spec if isinstance(spec, str) else getattr(spec, "__qualname__", spec)
            raise TypeError(f"{who}: building cell {label!r} failed: {err}") from err
    check_cell(cell, who)
    return cell


def _accepted(cls: type, options: dict[str, Any]) -> dict[str, Any]:
    try:
        params = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        return {}
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return dict(options)
    return {k: v for k, v in options.items() if k in params}
