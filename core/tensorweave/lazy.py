"""``lazy_exports``: a package whose public names are imported on first use (PEP 562).

A pack's ``__init__`` names what it exports and where each name lives; importing the
package (or one of its submodules: an entry point's target, a hook module) then imports
nothing else, so a lookup imports its provider's module and no more::

    # my_pack/__init__.py
    import tensorweave as tw

    _EXPORTS = {"Scale": "scale", "log_cosh": "losses"}   # name -> submodule
    __all__ = [*_EXPORTS, "__version__"]
    __getattr__, __dir__ = tw.lazy_exports(__name__, _EXPORTS)

A name that is its submodule's own name (``"kinds": "kinds"``) exports the submodule,
unless the submodule defines that name (``"table": "files.table"`` exports the function
``table``). A direct submodule must not be named after a function the package exports:
importing ``pack.table`` (an entry point does) would rebind ``pack.table`` to the module.

>>> import sys, types
>>> pack = types.ModuleType("doc_pack"); sys.modules["doc_pack"] = pack
>>> pack.__getattr__, pack.__dir__ = lazy_exports("doc_pack", {"dumps": "json"}, base="")
>>> pack.dumps({"a": 1})
'{"a": 1}'
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, exports: Mapping[str, str], *, base: str | None = None
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``, importing ``exports[name]`` on first use.

    Args:
        package: the package's ``__name__``.
        exports: public name -> the submodule (relative to the package) that defines it.
        base: the package the submodules are relative to (default: ``package``; ``""`` for
            absolute module names).
    """
    prefix = package if base is None else base
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        imported = importlib.import_module(f"{prefix}.{module}" if prefix else module)
        if module.rpartition(".")[2] == name:
            value = getattr(imported, name, imported)  # its own function, else the module
        else:
            value = getattr(imported, name)
        namespace[name] = value  # cached: the next access is an ordinary attribute
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *exports})

    return __getattr__, __dir__
