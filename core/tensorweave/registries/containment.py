"""Containment of hook implementations: one that raises is recorded, the call goes on.

pluggy runs a hook call itself (its ``_multicall`` loop: ``tryfirst``/``trylast`` order,
``wrapper=True`` and old-style ``hookwrapper`` implementations around the others,
``firstresult`` specs stopping at the first answer), and tensorweave lets it. pluggy
stops the whole call at the first implementation that raises; ``tw.plugins.call`` must
not let one broken plugin take the others' commands or callbacks down. So each plugin is
registered through a ``Contained`` stand-in whose hook functions are the plugin's own,
wrapped: inside ``containing()`` (what ``tw.plugins.call`` runs in), a plain
implementation that raises returns ``None`` (pluggy skips ``None`` results) and the error
goes to ``record``; a wrapper that raises before or after its ``yield`` is skipped the
same way, and the call goes on as if it were not there. Outside it (``tw.plugins.hook.X()``,
pluggy's own relay) the functions behave exactly as the plugin's: an error propagates, for
hooks whose errors are answers (a store that cannot resolve a run). Nothing else changes:
argument names, hook options and markers are the plugin's, so pluggy validates and orders
them as usual, and any other attribute reads through to the plugin.

>>> import pluggy
>>> mark = pluggy.HookimplMarker("doc")
>>> class Broken:
...     @mark
...     def doc_hook(self, x):
...         raise ValueError("boom")
>>> seen = []
>>> stand_in = Contained(Broken(), "broken", "doc", lambda hook, name, err: seen.append(str(err)))
>>> with containing():
...     stand_in.doc_hook(1), seen
(None, ['boom'])
>>> stand_in.doc_hook(1)
Traceback (most recent call last):
...
ValueError: boom
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
from collections.abc import Callable, Generator, Iterator
from typing import Any

__all__ = ["Contained", "Recorder", "containing"]

# ``record(hook_name, plugin_name, error)``: what the host does with a contained failure.
Recorder = Callable[[str, str, BaseException], None]


_CONTAINING = contextvars.ContextVar("tensorweave_containing", default=False)


@contextlib.contextmanager
def containing() -> Iterator[None]:
    """Hook calls made inside record and skip an implementation that raises."""
    token = _CONTAINING.set(True)
    try:
        yield
    finally:
        _CONTAINING.reset(token)


class Contained:
    """Stands in for ``plugin`` in the plugin manager, with every hook function contained.

    Args:
        plugin: the module or object that implements hooks with ``@hookimpl``.
        name: the name the plugin is registered under (``"dist:entry-point"``).
        project: the pluggy project name (the marker attribute is ``<project>_impl``).
        record: called with ``(hook, name, error)`` for each contained failure.
    """

    def __init__(self, plugin: object, name: str, project: str, record: Recorder) -> None:
        self.plugin = plugin
        marker = f"{project}_impl"
        for attr in dir(plugin):
            try:
                function = inspect.getattr_static(plugin, attr)
            except AttributeError:  # pragma: no cover - dir() listed what is not there
                continue
            opts = getattr(function, marker, None)
            if opts is None and isinstance(function, (staticmethod, classmethod)):
                opts = getattr(function.__func__, marker, None)
            if not isinstance(opts, dict):
                continue
            bound = getattr(plugin, attr)
            hook = opts.get("specname") or attr
            self.__dict__[attr] = _contain(bound, opts, hook, name, record)

    def __getattr__(self, attr: str) -> Any:
        # Only reached for what is not a contained hook: the plugin's other attributes.
        return getattr(self.__dict__["plugin"], attr)

    def __repr__(self) -> str:
        return f"Contained({self.plugin!r})"


def _contain(
    function: Callable[..., Any], opts: dict[str, Any], hook: str, name: str, record: Recorder
) -> Callable[..., Any]:
    """``function`` wrapped so that what it raises goes to ``record``; same signature and
    marker (``functools.wraps`` copies both, and pluggy reads the wrapped signature)."""
    if opts.get("wrapper") and inspect.isgeneratorfunction(function):
        return functools.wraps(function)(_contained_wrapper(function, hook, name, record))
    if opts.get("hookwrapper") and inspect.isgeneratorfunction(function):
        return functools.wraps(function)(_contained_old_wrapper(function, hook, name, record))

    @functools.wraps(function)
    def contained(*args: Any, **kwargs: Any) -> Any:
        if not _CONTAINING.get():
            return function(*args, **kwargs)
        token = _CONTAINING.set(False)  # hooks it calls itself behave as pluggy's
        try:
            return function(*args, **kwargs)
        except KeyboardInterrupt:
            raise
        except BaseException as err:  # contained: recorded, the others still run
            record(hook, name, err)
            return None
        finally:
            _CONTAINING.reset(token)

    return contained


def _started(
    function: Callable[..., Any], args: Any, kwargs: Any, hook: str, name: str, record: Recorder
) -> Generator[None, Any, Any] | None:
    """A wrapper's generator run to its ``yield``, or ``None`` (recorded) when it failed
    before: the call then runs without it."""
    try:
        teardown: Generator[None, Any, Any] = function(*args, **kwargs)
        next(teardown)
    except StopIteration:
        record(hook, name, RuntimeError(f"the {hook} wrapper of {name} did not yield"))
        return None
    except KeyboardInterrupt:
        raise
    except BaseException as err:
        record(hook, name, err)
        return None
    return teardown


def _contained_wrapper(
    function: Callable[..., Any], hook: str, name: str, record: Recorder
) -> Callable[..., Generator[None, Any, Any]]:
    """A ``wrapper=True`` implementation whose own failures are recorded and skipped."""

    def contained(*args: Any, **kwargs: Any) -> Generator[None, Any, Any]:
        if not _CONTAINING.get():
            return (yield from function(*args, **kwargs))
        teardown = _started(function, args, kwargs, hook, name, record)
        if teardown is None:
            return (yield)
        try:
            result = yield
        except BaseException as exc:  # the call failed: the wrapper may handle it
            try:
                teardown.throw(exc)
            except StopIteration as stop:
                return stop.value
            except BaseException as err:
                if err is exc or isinstance(err, KeyboardInterrupt):
                    raise
                record(hook, name, err)
                raise exc from None
            teardown.close()
            record(hook, name, RuntimeError(f"the {hook} wrapper of {name} yielded twice"))
            raise
        try:
            teardown.send(result)
        except StopIteration as stop:
            return stop.value
        except KeyboardInterrupt:
            raise
        except BaseException as err:  # failed after its yield: the inner result stands
            record(hook, name, err)
            return result
        teardown.close()
        record(hook, name, RuntimeError(f"the {hook} wrapper of {name} yielded twice"))
        return result

    return contained


def _contained_old_wrapper(
    function: Callable[..., Any], hook: str, name: str, record: Recorder
) -> Callable[..., Generator[None, Any, None]]:
    """An old-style ``hookwrapper=True`` implementation, contained the same way."""

    def contained(*args: Any, **kwargs: Any) -> Generator[None, Any, None]:
        if not _CONTAINING.get():
            yield from function(*args, **kwargs)
            return
        teardown = _started(function, args, kwargs, hook, name, record)
        outcome = yield
        if teardown is None:
            return
        try:
            teardown.send(outcome)
        except StopIteration:
            return
        except KeyboardInterrupt:
            raise
        except BaseException as err:
            record(hook, name, err)
            return
        teardown.close()
        record(hook, name, RuntimeError(f"the {hook} wrapper of {name} yielded twice"))

    return contained
