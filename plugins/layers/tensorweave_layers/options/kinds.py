"""The component kinds this pack introduces: ``activations``, ``initializers``,
``regularizers`` and ``constraints``.

Declared in the pack's ``pyproject.toml`` (entry-point group ``tensorweave.kinds``), so any
pack may offer components of these kinds and every one is checked when it loads. This
module imports no TensorFlow: it is imported whenever a component of these kinds loads.

Regularizers and constraints are *factories*, as a config block builds them: called with
options (``L2(l2=0.1)``, ``{"@regularizers": "l2.v1", "l2": 0.1}``) or with none (the name
``"l2"`` means ``L2()``), they return the function a layer applies to a weight. So every
option of a registered one has a default, which their checks make sure of.

>>> activations.check(abs), initializers.check("zeros")
(None, "an initializer must be a function (shape, dtype) -> tensor, got str 'zeros'")
>>> regularizers.check(lambda weight: 0.0)
"a regularizers component is a factory called with no arguments (every option has a default), but it requires 'weight'"
"""

from __future__ import annotations

import inspect
from typing import Any

import tensorweave as tw

__all__ = ["activations", "initializers", "regularizers", "constraints"]


def _is_activation(obj: Any) -> str | None:
    if callable(obj):
        return None
    return f"an activation must be a function tensor -> tensor, got {type(obj).__name__} {obj!r}"


def _is_initializer(obj: Any) -> str | None:
    if callable(obj):
        return None
    return (
        "an initializer must be a function (shape, dtype) -> tensor, got "
        f"{type(obj).__name__} {obj!r}"
    )


activations = tw.Kind(
    "activations",
    doc="element-wise functions tensor -> tensor (relu, tanh…), named by layers' activation=",
    check=_is_activation,
)
initializers = tw.Kind(
    "initializers",
    doc="functions (shape, dtype) -> initial value, named by layers' w_init=/b_init=",
    check=_is_initializer,
)


def _factory_check(kind: str, makes: str) -> Any:
    def check(obj: Any) -> str | None:
        if not callable(obj):
            return f"a {kind} component is a factory of {makes}, got {type(obj).__name__} {obj!r}"
        try:
            params = inspect.signature(obj).parameters.values()
        except (TypeError, ValueError):  # a builtin without a signature: trusted
            return None
        required = [
            p.name
            for p in params
            if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        ]
        if required:
            return (
                f"a {kind} component is a factory called with no arguments (every option has "
                f"a default), but it requires {', '.join(map(repr, required))}"
            )
        return None

    return check


regularizers = tw.Kind(
    "regularizers",
    doc="factories (**options) -> penalty(weight) -> scalar, named by layers' w_regularizer=/"
    "b_regularizer= (l1, l2…)",
    check=_factory_check("regularizers", "penalty functions weight -> scalar"),
)
constraints = tw.Kind(
    "constraints",
    doc="factories (**options) -> projection(weight) -> weight, applied after each update, "
    "named by layers' w_constraint=/b_constraint= (max_norm, non_neg…)",
    check=_factory_check("constraints", "projections weight -> weight"),
)
