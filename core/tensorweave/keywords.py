"""Keyword arguments a component does not take: its parameters and the closest match.

One check behind both doors: a key a config validator does not know
(``model.nodes.h.activaton``) and a keyword a Python constructor does not take
(``tw.layers["FC.v1"](x, n_units=4, activaton="relu")``) get the same words from
``unknown_keyword``: what was given, the closest parameter, and the parameter list.
``check_keywords`` raises it as a ``tw.ArgumentError`` before the component runs; every
``tw.Stateful`` (layers, cells, optimizers, models from any pack) calls it on
construction. A ``**kwargs`` parameter accepts anything. Keras's argument names
(``KERAS_NAMES``: ``filters``, ``units``, ``num_heads``, ``input_dim``...) are answered with
this component's spelling, whichever component it is. This module imports no TensorFlow.

>>> def conv(x, n_units, kernel_size, *, add_bias=True): ...
>>> check_keywords(conv, {"filters": 8, "use_bias": False}, "Conv2D.v1")
Traceback (most recent call last):
...
tensorweave.errors.ArgumentError: Conv2D.v1: 'filters' is not a parameter of Conv2D.v1. Keras's 'filters' is 'n_units' here. 'use_bias' is not a parameter of Conv2D.v1. Keras's 'use_bias' is 'add_bias' here. Parameters: x, n_units, kernel_size, add_bias.

>>> def fc(x, n_units, *, activation=None, name=None): ...
>>> check_keywords(fc, {"n_units": 4, "activaton": "relu"}, "FC.v1")
Traceback (most recent call last):
...
tensorweave.errors.ArgumentError: FC.v1: 'activaton' is not a parameter of FC.v1. Did you mean 'activation'? Parameters: x, n_units, activation, name.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import sys
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar, cast

from tensorweave.errors import ArgumentError

__all__ = [
    "KERAS_NAMES",
    "Keywords",
    "keywords_of",
    "unknown_keyword",
    "check_keywords",
    "checks_keywords",
    "component_label",
]

F = TypeVar("F", bound=Callable[..., Any])

#: Keras's argument names and what tensorweave calls them, in order of preference: the
#: first one the component takes is the answer (``input_dim`` is ``vocab_size`` of a
#: ``Lookup``, ``output_dim`` its ``n_units``)
KERAS_NAMES: dict[str, tuple[str, ...]] = {
    "filters": ("n_units",),
    "units": ("n_units",),
    "output_dim": ("n_units",),
    "input_dim": ("vocab_size", "n_units"),
    "embeddings_initializer": ("w_init",),
    "num_heads": ("n_heads",),
    "num_key_value_heads": ("n_kv_heads",),
    "key_dim": ("head_dim",),
    "use_bias": ("add_bias",),
    "kernel_initializer": ("w_init",),
    "bias_initializer": ("b_init",),
    "kernel_regularizer": ("w_regularizer",),
    "bias_regularizer": ("b_regularizer",),
    "kernel_constraint": ("w_constraint",),
    "bias_constraint": ("b_constraint",),
    "embeddings_regularizer": ("w_regularizer",),
    "kernel": ("kernel_size",),
    "kernel_shape": ("kernel_size",),
    "stride": ("strides",),
    "pool": ("pool_size",),
    "intermediate_size": ("intermediate_dim",),
    "dropout_rate": ("dropout", "rate"),
    "rate": ("dropout",),
    "dropout": ("rate",),
    "validation_data": ("validation",),
}

_BY_KEYWORD = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


@dataclass(frozen=True)
class Keywords:
    """What a component takes by keyword.

    Attributes:
        names: the parameters a caller may name, in signature order.
        open: whether a ``**kwargs`` parameter takes any other name.
    """

    names: tuple[str, ...]
    open: bool

    def unknown(self, given: Iterable[str]) -> list[str]:
        """The names in ``given`` this component does not take, in order."""
        if self.open:
            return []
        return [k for k in given if k not in self.names]


_cache: weakref.WeakKeyDictionary[type, Keywords] = weakref.WeakKeyDictionary()


def keywords_of(component: Any) -> Keywords:
    """The keywords ``component`` (a class, read from its constructor, or a function)
    takes; cached per class, as classes are built many times."""
    if inspect.isclass(component):
        found = _cache.get(component)
        if found is None:
            found = _cache[component] = _read(component.__init__, True)
        return found
    return _read(component, False)


def _read(target: Callable[..., Any], bound: bool) -> Keywords:
    try:
        params = list(inspect.signature(target).parameters.values())
    except (TypeError, ValueError):  # a builtin without a signature: accept anything
        return Keywords((), True)
    if bound and params and params[0].kind is not inspect.Parameter.VAR_POSITIONAL:
        params = params[1:]  # ``self`` of a constructor
    names = tuple(p.name for p in params if p.kind in _BY_KEYWORD)
    open_kw = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
    return Keywords(names, open_kw)


def unknown_keyword(key: str, owner: str, known: Iterable[str]) -> str:
    """The message for ``key``, which ``owner`` does not take: the closest of ``known``
    (the parameters that could be meant) and the list of them.

    >>> unknown_keyword("n_unit", "Linear.v1", ["x", "n_units", "add_bias"])
    "'n_unit' is not a parameter of Linear.v1. Did you mean 'n_units'? Parameters: x, n_units, add_bias."
    """
    known = list(known)
    keras = [name for name in KERAS_NAMES.get(key, ()) if name in known]
    close = difflib.get_close_matches(key, known, n=1)
    if keras:
        hint = f" Keras's {key!r} is {keras[0]!r} here."
    else:
        hint = f" Did you mean {close[0]!r}?" if close else ""
    listed = ", ".join(known) if known else "none"
    return f"{key!r} is not a parameter of {owner}.{hint} Parameters: {listed}."


def check_keywords(component: Any, kwargs: Mapping[str, Any], owner: str | None = None) -> None:
    """Raise ``ArgumentError`` (the ``unknown_keyword`` message) when ``kwargs`` holds a name
    ``component`` does not take; ``owner`` names it in the message (default: its name and
    the distribution that provides it)."""
    if not kwargs:
        return
    keywords = keywords_of(component)
    unknown = keywords.unknown(kwargs)
    if not unknown:
        return
    short = owner or getattr(component, "__name__", None) or type(component).__name__
    problems = " ".join(unknown_keyword(k, short, keywords.names) for k in unknown)
    if len(unknown) > 1:  # the parameter list once, at the end
        listed = f" Parameters: {', '.join(keywords.names) or 'none'}."
        problems = (
            " ".join(
                unknown_keyword(k, short, keywords.names).removesuffix(listed) for k in unknown
            )
            + listed
        )
    raise ArgumentError(f"{owner or component_label(component)}: {problems}")


def checks_keywords(function: F) -> F:
    """Decorate a component written as a function so that a keyword it does not take gets
    ``check_keywords``' message (Keras's name mapped, or the closest parameter) instead of
    Python's bare ``TypeError``: what every class component gets from ``tw.Stateful``.
    Nothing is checked on a call that works (the check runs when Python refuses one), and
    the decorated function is what the pack registers, so the registry returns it as is.

    >>> @checks_keywords
    ... def Block(x, n_heads, *, head_dim=None): return x
    >>> Block(1, num_heads=2)
    Traceback (most recent call last):
    ...
    tensorweave.errors.ArgumentError: Block: 'num_heads' is not a parameter of Block. Keras's 'num_heads' is 'n_heads' here. Parameters: x, n_heads, head_dim.
    """

    @functools.wraps(function)
    def checked(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except TypeError:
            check_keywords(function, kwargs)  # raises when a keyword is not taken
            raise

    return cast(F, checked)


def component_label(component: Any) -> str:
    """``Scale (my-pack 1.0.0)``: a class or function's name and, when an
    installed distribution holds its module, that distribution."""
    name = str(getattr(component, "__qualname__", None) or getattr(component, "__name__", "?"))
    dist = _distribution(getattr(component, "__module__", "") or "")
    return f"{name} ({dist})" if dist else name


def _distribution(module: str) -> str:
    top = module.partition(".")[0]
    file = getattr(sys.modules.get(module), "__file__", None)
    for name in _packages().get(top, []):
        if file is not None and not _ships(name, top, file):
            continue  # another folder of the same top-level name (a wheel's stray ``tests``)
        try:
            return f"{name} {metadata.version(name)}"
        except metadata.PackageNotFoundError:
            return name
    return ""


def _ships(name: str, top: str, file: str) -> bool:
    """Whether distribution ``name`` installed the module file ``file`` (of the top-level
    package ``top``); an editable install, whose files lie elsewhere, is trusted."""
    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return True
    roots = {
        Path(str(dist.locate_file(f.parts[0]))).resolve()
        for f in dist.files or []
        if f.parts and f.parts[0] in (top, f"{top}.py")
    }
    if not roots:
        return True
    path = Path(file).resolve()
    return any(path == root or root in path.parents for root in roots)


@functools.cache
def _packages() -> Mapping[str, list[str]]:
    return metadata.packages_distributions()
