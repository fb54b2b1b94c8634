"""``resolve``: the one rule that turns a component option into a component.

Every pack resolves options such as ``activation="relu"``, ``w_init="glorot_uniform"`` or
``cell="LSTMCell"`` the same way, through the registries only:

- a callable (a class or function) is used as it is;
- a string is a registered name: ``"relu.v1"`` exactly, ``"relu"`` the latest version,
  ``"my-pack:relu.v1"`` from one distribution;
- ``None`` means the option's default name (or no component when the default is ``None``).

Anything else, or an unknown name, raises an error naming the component and the option.

>>> import tensorweave as tw
>>> with tw.registry("doc_steps").scoped():
...     _ = tw.registry("doc_steps").register("double.v1", lambda x: 2 * x)
...     tw.resolve("doc_steps", "double")(21), tw.resolve("doc_steps", None) is None
(42, True)
>>> tw.resolve("doc_steps", 3, owner="Linear 'linear'", option="w_init")
Traceback (most recent call last):
...
TypeError: Linear 'linear': w_init must be a registered doc_steps name or a callable, got int 3.
"""

from __future__ import annotations

from typing import Any

from tensorweave.errors import UnknownComponentError
from tensorweave.registries.kinds import registry

__all__ = ["resolve"]


def resolve(
    kind: str,
    spec: Any,
    *,
    default: str | None = None,
    owner: str = "",
    option: str = "",
) -> Any:
    """The component ``spec`` names in the registry of ``kind`` (see the module docstring).

    Args:
        kind: the registry to look in (``"activations"``, ``"initializers"``, ``"layers"``…).
        spec: a callable, a registered name, or ``None``.
        default: the name used when ``spec`` is ``None``.
        owner: who asks, for messages (``"Linear 'linear_1'"``).
        option: the option being resolved, for messages (``"w_init"``).
    """
    if spec is None:
        if default is None:
            return None
        spec = default
    if callable(spec):
        return spec
    who = f"{owner}: " if owner else ""
    what = option or kind
    if not isinstance(spec, str) or not spec:
        raise TypeError(
            f"{who}{what} must be a registered {kind} name or a callable, got "
            f"{type(spec).__name__} {spec!r}."
        )
    try:
        return registry(kind).get(spec)
    except UnknownComponentError as err:
        raise UnknownComponentError(f"{who}{what}={spec!r}: {err}") from err
