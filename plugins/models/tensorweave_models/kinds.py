"""The ``models`` kind, which this pack introduces: architectures by name.

A ``models`` component is a *builder*: called with its input (a ``tw.Layer``, or one
example's shape for a fresh ``tw.Input``) first and options by keyword, it returns a
``tw.Module`` holding the whole network, so a config node uses it like a layer::

    body = { "@models" = "ResNet18.v1", inputs = ["x"], classes = 10 }

The check below is the builder contract every pack's ``models`` component must keep: a
callable taking at least one positional input and a ``name`` keyword (the config gives the
node's name). Light on purpose: no TensorFlow is imported here.

>>> def Tiny(x, *, classes=10, name=None): ...
>>> models.check(Tiny) is None
True
>>> models.check(lambda *, name=None: None)
'a models builder takes its input first (a layer or a shape), got a signature (*, name=None)'
"""

from __future__ import annotations

import inspect
from typing import Any

import tensorweave as tw

__all__ = ["models", "builder_problem"]

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def builder_problem(obj: Any) -> str | None:
    """Why ``obj`` is not a ``models`` builder, or ``None`` when it is one."""
    if not callable(obj):
        return f"a models builder is a callable returning a tw.Module, got {type(obj).__name__}"
    try:
        params = list(inspect.signature(obj).parameters.values())
    except (TypeError, ValueError):
        return None  # a builtin without a signature: nothing to check
    if inspect.isclass(obj) and params and params[0].name == "self":
        params = params[1:]
    takes = {p.kind for p in params}
    if not any(k in _POSITIONAL for k in takes) and inspect.Parameter.VAR_POSITIONAL not in takes:
        return (
            "a models builder takes its input first (a layer or a shape), got a signature "
            f"{inspect.signature(obj)}"
        )
    if "name" not in {p.name for p in params} and inspect.Parameter.VAR_KEYWORD not in takes:
        return (
            f"a models builder takes name= (a config names its node), got {inspect.signature(obj)}"
        )
    return None


models = tw.Kind(
    "models",
    doc="architectures by name: builders (input or shape, options) -> tw.Module",
    check=builder_problem,
)
