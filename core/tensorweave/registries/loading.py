"""Loading one plugin's component: the only place a registry imports a provider's module.

``Registry`` (``registry.py``) finds, lists and picks entries; when a lookup settles on an
entry point not loaded yet, ``load_entry`` brings it in: it refuses a distribution made for
another core version before importing anything, imports the entry point's module alone
(any exception there, even ``SystemExit``, is contained), and checks the object is a valid
component of its kind. Each failure is recorded on the entry, so the next lookup raises the
same error without importing again, and names the component, its provider and the fix.

>>> from tensorweave.registries.discovery import EntryPointRef
>>> from tensorweave.registries.entries import Entry
>>> ref = EntryPointRef("Bad.v1", "tensorweave.demo", "no_such_module:thing", "demo-pack", "1.0")
>>> entry = Entry("Bad.v1", "demo-pack", "1.0", ref=ref)
>>> import warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     load_entry("demo", entry, lambda name, obj: None)
Traceback (most recent call last):
...
tensorweave.errors.PluginLoadError: demo component 'Bad.v1' from demo-pack 1.0 (entry point 'no_such_module:thing') failed to load: ...
>>> type(entry.error).__name__, [w.category.__name__ for w in caught]
('PluginLoadError', ['RuntimeWarning'])
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from tensorweave.errors import IncompatiblePluginError, InvalidComponentError, PluginLoadError
from tensorweave.registries.discovery import CORE_VERSION, catalog
from tensorweave.registries.entries import Alias, Entry

__all__ = ["compatible", "load_entry"]

# ``problem(name, obj)``: why ``obj`` is not a valid component (a string), or ``None``.
Problem = Callable[[str, Any], "str | None"]


def load_entry(kind: str, e: Entry, problem: Problem) -> Any:
    """Import the object entry ``e``'s entry point names, checked with ``problem``.

    Returns the component, or the ``Alias`` the entry point names (the registry follows
    it). Raises ``IncompatiblePluginError``, ``PluginLoadError`` or
    ``InvalidComponentError``, and records it on ``e.error``. The caller holds the
    registry's lock and has checked that ``e`` is neither loaded nor failed.
    """
    ref = e.ref
    assert ref is not None
    where = f"{kind} component {e.name!r} from {e.label()} (entry point {ref.value!r})"
    dist = catalog.distributions().get(e.provider)
    if dist is not None and not dist.compatible:
        e.error = IncompatiblePluginError(
            f"{where} was refused: {e.provider} supports tensorweave"
            f"{dist.requires_core}, but this is tensorweave {CORE_VERSION}.\n  Fix: "
            f"install a version of {e.provider} made for tensorweave {CORE_VERSION}.",
            entry_point=e.name,
            distribution=e.provider,
            version=e.version,
        )
        raise e.error
    try:
        obj = ref.load()
    except KeyboardInterrupt:
        raise
    except BaseException as err:  # SystemExit at import must not end the caller
        e.error = PluginLoadError(
            f"{where} failed to load: {type(err).__name__}: {err}\n  Fix: reinstall or "
            f"upgrade {e.provider}, or block it with TENSORWEAVE_BLOCK={e.provider}; "
            "other plugins are unaffected.",
            entry_point=e.name,
            distribution=e.provider,
            version=e.version,
            cause=err,
        )
        e.error.__cause__ = err
        # stacklevel: load_entry, Registry._load, the registry's lookup, its caller
        warnings.warn(str(e.error), RuntimeWarning, stacklevel=4)
        raise e.error from err
    if isinstance(obj, Alias):
        return obj
    invalid = problem(e.name, obj)
    if invalid:
        e.error = InvalidComponentError(
            f"{where} is not a valid {kind} component: {invalid}\n  Fix: the "
            f"entry point must name a {kind} component; report it to {e.provider}.",
            entry_point=e.name,
            distribution=e.provider,
            version=e.version,
        )
        raise e.error
    return obj


def compatible(distribution: str) -> bool:
    """Whether ``distribution`` declares support for this core (unknown ones are)."""
    dist = catalog.distributions().get(distribution)
    return dist is None or dist.compatible
