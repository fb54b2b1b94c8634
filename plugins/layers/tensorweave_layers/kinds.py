"""The component kinds this pack introduces: ``activations`` and ``initializers``.

Declared in the pack's ``pyproject.toml`` (entry-point group ``tensorweave.kinds``), so any
pack may offer components of these kinds and every one is checked when it loads. This
module imports no TensorFlow: it is imported whenever a component of these kinds loads.

>>> activations.check(abs), initializers.check("zeros")
(None, "an initializer must be a function (shape, dtype) -> tensor, got str 'zeros'")
"""

from __future__ import annotations

from typing import Any

import tensorweave as tw

__all__ = ["activations", "initializers"]


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
