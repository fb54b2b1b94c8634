"""From a built object back to its registered name: what writes a config of something built
in Python (``writing``, ``writing_ops``).

>>> import tensorweave as tw
>>> registered_name(tw.Lambda, ["layers"])
('layers', 'Lambda.v1')
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tensorweave.config.resolver import lookup
from tensorweave.registries import kinds, registry

__all__ = ["registered_name", "NO_CONFIG_FORM_FIX"]

_USABLE = ("available", "loaded")

#: what to do about an object that has no config form (the end of every such error)
NO_CONFIG_FORM_FIX = (
    "Fix: build it from registered components (tw.layers[...], tw.losses[...]), register "
    "your own (an entry point, or tw.registry(kind).register(name, obj)), or save the "
    "weights alone (tf.train.Checkpoint)."
)


def registered_name(obj: Any, among: Iterable[str] | None = None) -> tuple[str, str] | None:
    """``(kind, name)`` of the registered component that is ``obj`` (or whose plain
    ``.function`` is ``obj``: a pack's dual-use loss), looking only at the kinds ``among``
    (default every kind); ``None`` when no installed pack offers it. Only candidates of the
    same name are imported. The name is qualified (``"dist:Name.v1"``) when several
    distributions offer it.
    """
    wanted = getattr(obj, "__name__", None)
    if not isinstance(wanted, str):
        return None
    for kind in sorted(kinds()) if among is None else among:
        reg = registry(kind)
        for info in reg.infos():
            attr = info.target.rpartition(":")[2].rpartition(".")[2]
            if info.status not in _USABLE or attr != wanted:
                continue
            found = lookup(kind, info.qualified_name, "", [])  # a broken one is not it
            if found is None:
                continue
            if found is obj or getattr(found, "function", None) is obj:
                several = len(reg.providers(info.name)) > 1
                return kind, info.qualified_name if several else info.name
    return None
