"""The resolver: the one place a config's registered name is looked up.

``lookup`` turns ``(kind, name)`` into the registered component, or records the problem
(unknown kind or name, with close matches and the pack that provides it) at its dotted
path. ``graphs`` and ``resolve`` both import it; it imports neither.

>>> errors = []
>>> lookup("optimizers", "Nope.v1", "opt.@optimizers", errors) is None, errors[0][0]
(True, 'opt.@optimizers')
"""

from __future__ import annotations

import difflib
from typing import Any

from tensorweave.errors import RegistryError, UnknownComponentError
from tensorweave.registries import hint_for, kinds, registry
from tensorweave.registries.counterparts import suggestion

__all__ = ["lookup"]


def lookup(
    kind: str,
    name: Any,
    path: str,
    errors: list[tuple[str, str]],
    *,
    recorded: str | None = None,
    causes: list[BaseException] | None = None,
) -> Any:
    """The component ``name`` of ``kind``, or ``None`` with the problem added to ``errors``.

    ``recorded`` is the ``"@provider"`` a filled config saved beside the name; when the
    component (or its whole kind) is missing, the message says which distribution (and
    version) to install. A component that failed to load adds its error to ``causes``.
    """
    if not isinstance(name, str) or not name:
        errors.append((path, f"'@{kind}' must name a registered component, got {name!r}"))
        return None
    known = set(kinds())
    if kind not in known:
        close = difflib.get_close_matches(kind, sorted(known), n=1)
        provided = hint_for(kind, name, recorded=recorded)
        hint = f" Did you mean '@{close[0]}'?" if close else ""
        hint += f" {provided}." if provided else ""
        errors.append((path, f"unknown component kind '@{kind}'.{hint} Kinds: {sorted(known)}"))
        return None
    reg = registry(kind)
    try:
        return reg.get(name)
    except UnknownComponentError:
        bare = name.split(":", 1)[-1]
        close = difflib.get_close_matches(bare, reg.names(), n=3, cutoff=0.6)
        msg = f"unknown {kind} component {name!r}"
        elsewhere = suggestion(kind, bare, reg.__contains__)  # "Dense is keras.layers.Dense…"
        if elsewhere:
            msg += f"; {elsewhere}"
        provided = hint_for(kind, name, recorded=recorded)
        if provided:
            msg += f"; {provided}"
        if close:
            msg += f"; close matches: {', '.join(close)}"
        if not provided and not close and not elsewhere:
            msg += "; `tensorweave plugins` lists what is installed"
        errors.append((path, msg))
    except RegistryError as err:
        errors.append((path, f"{kind} component {name!r} cannot be used: {err}"))
        if causes is not None:
            causes.append(err)
    return None
