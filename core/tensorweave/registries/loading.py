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

import difflib
import sys
import traceback
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tensorweave.errors import IncompatiblePluginError, InvalidComponentError, PluginLoadError
from tensorweave.registries.discovery import CORE_VERSION, EntryPointRef, catalog
from tensorweave.registries.entries import Alias, Entry
from tensorweave.registries.sources import target_problem

__all__ = ["compatible", "load_entry", "plugin_frames"]

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
            f"{where} failed to load: {type(err).__name__}: {err}{_why(ref, err)}",
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


def _why(ref: EntryPointRef, err: BaseException) -> str:
    """The rest of a load failure's message: where it comes from, and who can fix it how.

    A target that does not exist (a typo in ``pyproject.toml``) is the pack author's to
    fix, so the message names the line and the close matches in the module; a module that
    raises at import shows the plugin's own file and line.
    """
    typo = _target_typo(ref, err)
    user = (
        f"(as a user: report it to {ref.distribution}, or block it with "
        f"TENSORWEAVE_BLOCK={ref.distribution}; other plugins are unaffected)"
    )
    if typo is not None:
        return (
            f"\n  {typo}.\n  Fix (author of {ref.distribution}): correct the line "
            f"{ref.pyproject_line()} in its pyproject.toml and reinstall it {user}."
        )
    frames = plugin_frames(err)
    at = f" (raised at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""
    if isinstance(err, ModuleNotFoundError) and err.name:
        return (
            f"{at}\n  Fix: pip install {err.name.split('.')[0]!r} (the author of "
            f"{ref.distribution} should list it in its dependencies) {user}."
        )
    return (
        f"{at}\n  Fix: reinstall or upgrade {ref.distribution} (`--traceback` shows its "
        f"frames) {user}."
    )


def _target_typo(ref: EntryPointRef, err: BaseException) -> str | None:
    """What is wrong with the entry point's target itself, or ``None`` if it is not that."""
    module, _, qualname = ref.value.partition(":")
    if isinstance(err, ModuleNotFoundError) and err.name and module.startswith(err.name):
        return target_problem(ref.value) or f"no module {err.name!r}"
    loaded = sys.modules.get(module)
    if isinstance(err, AttributeError) and loaded is not None and qualname:
        first = qualname.split(".")[0]
        if not hasattr(loaded, first):
            names = [n for n in dir(loaded) if not n.startswith("_")]
            close = difflib.get_close_matches(first, names, n=3)
            hint = f" (close matches: {', '.join(close)})" if close else ""
            return f"{module} does not define {first!r}{hint}"
    return None


def plugin_frames(err: BaseException) -> list[traceback.FrameSummary]:
    """The frames of ``err``'s traceback in the plugin's own code (not importlib's, not
    tensorweave's loader), innermost last."""
    own = (str(Path(__file__).parent), "importlib", "<frozen ")
    return [
        frame
        for frame in traceback.extract_tb(err.__traceback__)
        if not any(part in frame.filename for part in own)
    ]


def compatible(distribution: str) -> bool:
    """Whether ``distribution`` declares support for this core (unknown ones are)."""
    dist = catalog.distributions().get(distribution)
    return dist is None or dist.compatible
