"""Reuse: a layer rebuilt on other inputs, sharing its state (the default ``reuse_with``).

Every layer records the arguments it was constructed with (``Layer.__new__``).
``rebuilt_on`` makes the layer again from them, the input layers swapped for new ones,
per-use options overriding keywords and ``share_state_with`` set, so the new node reads
the very same ``tf.Variable`` objects (``Layer.reuse_with`` documents the contract; a
layer that needs more overrides ``reuse_with``).

>>> import tensorweave as tw
>>> class Half(tw.Layer):
...     def __init__(self, x, *, name=None, share_state_with=None):
...         super().__init__(x, shape=x.shape, name=name, share_state_with=share_state_with)
...     def compute(self, x):
...         return x / 2
>>> x1, x2 = tw.Input(n_units=3), tw.Input(n_units=3)
>>> a = Half(x1)
>>> b = rebuilt_on(a, (x2,), {}, node_type=tw.Layer)
>>> type(b).__name__, b.inputs == (x2,), b.state is a.state
('Half', True, True)
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["rebuilt_on"]


def rebuilt_on(
    layer: Any, inputs: Sequence[Any], options: Mapping[str, Any], *, node_type: type
) -> Any:
    """``layer`` made again on ``inputs`` with its constructor arguments, ``options``
    overriding keywords, sharing its state: what ``Layer.reuse_with`` does by default.
    ``node_type`` (``tw.Layer``, given by ``layer.py``, which imports this module, so this
    one does not import it) tells the constructor's input arguments from its options."""
    Layer = node_type

    args, kwargs = layer._tw_init_args
    old_inputs = layer.inputs
    if len(inputs) != len(old_inputs) and not _takes_varargs(type(layer)):
        raise TypeError(
            f"{type(layer).__name__} {layer.name!r}.reuse_with expected "
            f"{len(old_inputs)} input(s), got {len(inputs)}."
        )
    lead = 0
    while lead < len(args) and isinstance(args[lead], Layer):
        lead += 1
    # Inputs given by keyword (``Gate(x, gate=g)``) go back by keyword and only the
    # leading ones positionally; otherwise all go positionally (``*inputs`` layers).
    n_keyword = sum(isinstance(v, Layer) for v in kwargs.values())
    by_keyword = n_keyword > 0 and lead + n_keyword == len(old_inputs) == len(inputs)
    positional = inputs[:lead] if by_keyword else inputs
    replaced = {id(old): new for old, new in zip(old_inputs, inputs, strict=False)}
    new_args = (*positional, *args[lead:])
    new_kwargs = {
        k: replaced.get(id(v), v) if isinstance(v, Layer) else v for k, v in kwargs.items()
    }
    new_kwargs.pop("name", None)
    new_kwargs.update(options)
    new_kwargs["share_state_with"] = layer
    return type(layer)(*new_args, **new_kwargs)


def _takes_varargs(cls: type) -> bool:
    params = inspect.signature(cls).parameters.values()
    return any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params)
