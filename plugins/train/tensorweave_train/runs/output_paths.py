"""Output paths: the options of a component that name a file or folder it writes.

``OutputPath`` is the type of such an option (``CSVLogger.v1``'s ``filename``...). In a
config run by ``tensorweave train`` (or a sweep) such a path is relative to the run
directory, and one that is absolute or leaves it is refused at validation
(``output_path_problem``), unless the command line says ``--allow-paths-outside``;
``output_params`` lists a component's options of that type. Apart from the run
directory because components import the type without needing any run machinery.

>>> output_path_problem("/tmp/x")
"'/tmp/x' is an absolute path"
"""

from __future__ import annotations

import os
from typing import Annotated, Any

__all__ = ["WRITES_HERE", "OutputPath", "output_params", "output_path_problem"]


class _WritesHere:
    """The mark ``OutputPath`` carries: the option names a path its component writes."""

    def __repr__(self) -> str:
        return "OutputPath"


WRITES_HERE = _WritesHere()

OutputPath = Annotated[str | os.PathLike[str], WRITES_HERE]
"""The type of a component option that names a file or folder the component writes.

Annotate such an option with it, and a config run by ``tensorweave train`` (or a sweep)
reads it relative to the run directory, refusing at validation an absolute path or one
that leaves the run (``../x``) with the option's dotted path, unless the command line
says ``--allow-paths-outside``. In Python the value is used as given (relative to the
working directory). To type checkers it is ``str | os.PathLike[str]``.

>>> from tensorweave_train import OutputPath
>>> class SaveSamples:
...     def __init__(self, folder: OutputPath = "samples", every: int = 1): ...
>>> output_params(SaveSamples)
['folder']
"""


def _writes_here(hint: Any) -> bool:
    import typing

    if typing.get_origin(hint) is Annotated:
        return any(m is WRITES_HERE for m in typing.get_args(hint)[1:]) or _writes_here(
            typing.get_args(hint)[0]
        )
    return any(_writes_here(a) for a in typing.get_args(hint))


def output_params(component: Any) -> list[str]:
    """The options of ``component`` (a class or function) typed ``OutputPath`` (or
    ``OutputPath | None``...)."""
    import inspect
    import typing

    target = component.__init__ if inspect.isclass(component) else component
    try:
        hints = typing.get_type_hints(target, include_extras=True)
    except Exception:  # hints that cannot be resolved: no declared output path
        return []
    return [name for name, hint in hints.items() if name != "return" and _writes_here(hint)]


def output_path_problem(value: Any, run_dir: str | os.PathLike[str] | None = None) -> str | None:
    """Why the config value ``value`` of an ``OutputPath`` option would write outside the
    run directory (absolute, ``..`` leaving it, or, given the existing ``run_dir``, a
    symbolic link leading out), or ``None``.

    >>> output_path_problem("logs/x.csv"), output_path_problem("a/../b") is None
    (None, True)
    >>> output_path_problem("../outside/x.csv")
    "'../outside/x.csv' leaves the run directory"
    """
    if not isinstance(value, str | os.PathLike):
        return None  # a type problem, reported by the resolver
    text = os.fspath(value)
    if os.path.isabs(text):
        return f"{text!r} is an absolute path"
    if text.startswith("~"):
        return f"{text!r} names a home folder"
    norm = os.path.normpath(text)
    if norm == ".." or norm.startswith(".." + os.sep):
        return f"{text!r} leaves the run directory"
    if run_dir is not None:
        root = os.path.realpath(run_dir)
        real = os.path.realpath(os.path.join(root, text))
        if real != root and not real.startswith(root + os.sep):
            return f"{text!r} leaves the run directory through a symbolic link (to {real})"
    return None
