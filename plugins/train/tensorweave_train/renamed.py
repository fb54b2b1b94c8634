"""Renamed arguments: the old spelling still works and warns, naming the new one.

TODO(merge): the core is getting ONE mechanism for renamed arguments (a decorator such as
``tw.renamed_arguments``); when it lands, replace this module's body with
``renamed_arguments = tw.renamed_arguments`` (or import it at the call sites) and delete
the local copy. Every use in this pack goes through this one function.

>>> import warnings
>>> @renamed_arguments(logdir="log_dir")
... def f(log_dir=None):
...     return log_dir
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     f(logdir="runs")
'runs'
>>> str(caught[0].message)
"f: the argument 'logdir' is now called 'log_dir'; 'logdir' still works but is deprecated."
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["renamed_arguments"]

F = TypeVar("F", bound=Callable[..., Any])


def renamed_arguments(**renames: str) -> Callable[[F], F]:
    """Accept each ``old=`` keyword as ``new``, with a ``DeprecationWarning``; giving both
    is a ``TypeError``. The mapping is kept as ``fn.__renamed_arguments__``."""

    def decorate(fn: F) -> F:
        owner = fn.__qualname__.removesuffix(".__init__")

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for old, new in renames.items():
                if old in kwargs:
                    if new in kwargs:
                        raise TypeError(f"{owner}: give {new!r} only ({old!r} is its old name).")
                    warnings.warn(
                        f"{owner}: the argument {old!r} is now called {new!r}; {old!r} still "
                        "works but is deprecated.",
                        DeprecationWarning,
                        stacklevel=2,
                    )
                    kwargs[new] = kwargs.pop(old)
            return fn(*args, **kwargs)

        wrapper.__renamed_arguments__ = dict(renames)  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate
