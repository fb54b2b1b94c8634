"""``renamed_arguments``: old argument names kept as deprecated aliases that warn.

When a component's argument is renamed (``probability`` -> ``rate``), callers, config
files and command-line overrides written with the old name must keep working for a
release, and say what to write instead. Decorate the function, method or class once::

    @tw.renamed_arguments({"probability": "rate"})
    class Dropout(tw.Layer):
        def __init__(self, x, rate=0.1, *, training=True, name=None, share_state_with=None):
            ...

A call with ``probability=0.3`` then runs as ``rate=0.3`` and emits a
``RenamedArgumentWarning`` (a ``FutureWarning``, shown by default, also to users of a
config file) naming the new argument; giving both names is a ``TypeError``. The signature
(``inspect.signature``, ``tensorweave describe``, config validation) shows only the new
names; ``renames_of(component)`` gives the aliases, which the config loader uses to accept
old keys. For a ``tw.Layer`` the recorded constructor arguments (used by the default
``reuse_with``) hold the new names, so a reuse does not warn again. Subclasses inherit the
aliases of their bases' constructors.

This module imports no TensorFlow.

>>> import warnings
>>> @renamed_arguments({"n_classes": "num_classes"})
... def one_hot(ids, num_classes=2):
...     return [[int(i == c) for c in range(num_classes)] for i in ids]
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     one_hot([1], n_classes=3)
[[0, 1, 0]]
>>> print(caught[0].message)
one_hot: the argument 'n_classes' is renamed 'num_classes'; 'n_classes' still works but will be removed. Fix: write num_classes=...
>>> renames_of(one_hot)
{'n_classes': 'num_classes'}
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

__all__ = [
    "RenamedArgumentWarning",
    "renamed_arguments",
    "renames_of",
    "apply_renames",
    "warn_renamed",
]

F = TypeVar("F", bound=Callable[..., Any])

_ATTR = "__tw_renamed__"


class RenamedArgumentWarning(FutureWarning):
    """An argument was given by its old, deprecated name (see ``renamed_arguments``)."""


def warn_renamed(owner: str, old: str, new: str, *, stacklevel: int = 2) -> None:
    """Emit the ``RenamedArgumentWarning`` for ``old`` given instead of ``new``."""
    warnings.warn(
        f"{owner}: the argument {old!r} is renamed {new!r}; {old!r} still works but will "
        f"be removed. Fix: write {new}=...",
        RenamedArgumentWarning,
        stacklevel=stacklevel + 1,
    )


def apply_renames(
    owner: str,
    renames: Mapping[str, str],
    kwargs: Mapping[str, Any],
    *,
    stacklevel: int = 2,
    warn: bool = True,
) -> dict[str, Any]:
    """``kwargs`` with old names replaced by new ones, warning once per old name used
    (unless ``warn=False``: the caller has warned already, e.g. the config validator).

    Raises ``TypeError`` when both the old and the new name are given.

    >>> apply_renames("demo", {"old": "new"}, {"new": 1, "x": 2})
    {'new': 1, 'x': 2}
    """
    if not renames or not any(k in kwargs for k in renames):
        return dict(kwargs)
    out: dict[str, Any] = {}
    for key, value in kwargs.items():
        new = renames.get(key)
        if new is None:
            out.setdefault(key, value)
            continue
        if new in kwargs:
            raise TypeError(
                f"{owner}: got both {new!r} and its deprecated alias {key!r}. Fix: give only "
                f"{new}=..."
            )
        if warn:
            warn_renamed(owner, key, new, stacklevel=stacklevel + 1)
        out[new] = value
    return out


def renamed_arguments(renames: Mapping[str, str]) -> Callable[[F], F]:
    """Accept each ``old`` keyword of ``renames`` (``{"old": "new"}``) as ``new``, warning.

    Works on functions, methods and classes (a class has its ``__init__`` wrapped); see the
    module docstring.
    """
    table = dict(renames)
    for old, new in table.items():
        if not (isinstance(old, str) and isinstance(new, str)) or old == new:
            raise ValueError(f"renamed_arguments: expected {{'old': 'new'}} names, got {renames}")

    def decorate(obj: F) -> F:
        if inspect.isclass(obj):
            init = obj.__init__
            owner = obj.__name__

            @functools.wraps(init)
            def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
                if any(k in kwargs for k in table):
                    kwargs = apply_renames(owner, table, kwargs, stacklevel=2)
                    recorded = getattr(self, "_tw_init_args", None)  # tw.Layer's reuse record
                    if recorded is not None:
                        rec_args, rec_kwargs = recorded
                        self._tw_init_args = (rec_args, _renamed_keys(table, rec_kwargs))
                init(self, *args, **kwargs)

            setattr(__init__, _ATTR, {**getattr(init, _ATTR, {}), **table})
            obj.__init__ = __init__  # type: ignore[method-assign]
            return obj
        owner = getattr(obj, "__qualname__", getattr(obj, "__name__", "function"))

        @functools.wraps(obj)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if any(k in kwargs for k in table):
                kwargs = apply_renames(owner, table, kwargs, stacklevel=2)
            return obj(*args, **kwargs)

        setattr(wrapper, _ATTR, {**getattr(obj, _ATTR, {}), **table})
        return wrapper  # type: ignore[return-value]

    return decorate


def renames_of(obj: Any) -> dict[str, str]:
    """The ``{old: new}`` aliases a function or class accepts (a class: its constructors')."""
    if inspect.isclass(obj):
        out: dict[str, str] = {}
        for klass in reversed(obj.__mro__):
            out.update(getattr(vars(klass).get("__init__"), _ATTR, {}))
        return out
    found: dict[str, str] = {}
    seen = set()
    while obj is not None and id(obj) not in seen:  # through functools.wraps layers
        seen.add(id(obj))
        found = {**getattr(obj, _ATTR, {}), **found}
        obj = getattr(obj, "__wrapped__", None)
    return found


def _renamed_keys(table: Mapping[str, str], kwargs: Mapping[str, Any]) -> dict[str, Any]:
    return {table.get(k, k): v for k, v in kwargs.items()}
