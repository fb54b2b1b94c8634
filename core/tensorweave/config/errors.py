"""``ConfigError``: every problem found in a config, each with its dotted path.

Resolution collects all problems before raising, so one run shows every mistake:

>>> from tensorweave.config.errors import ConfigError
>>> err = ConfigError([("model.layers.h.n_units", "expected int, got 'abc'")])
>>> print(err)
the config has 1 problem:
  model.layers.h.n_units: expected int, got 'abc'
>>> err.errors
[('model.layers.h.n_units', "expected int, got 'abc'")]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tensorweave.errors import TensorweaveError

__all__ = ["ConfigError", "Problems", "join_path"]


class ConfigError(TensorweaveError, ValueError):
    """A config could not be loaded, validated or built.

    Attributes:
        errors: ``(dotted_path, message)`` pairs, one per problem, in the order found.
    """

    def __init__(self, errors: Sequence[tuple[str, str]], *, source: str = "") -> None:
        self.errors = list(dict.fromkeys(errors))
        causes = getattr(errors, "causes", ())
        if causes:  # a plugin that failed to load: its traceback is this error's cause
            self.__cause__ = causes[0]
        self.source = source
        where = f" {source}" if source else ""
        n = len(self.errors)
        lines = [f"the config{where} has {n} problem{'s' if n != 1 else ''}:"]
        lines += [f"  {path or '<root>'}: {msg}" for path, msg in self.errors]
        super().__init__("\n".join(lines))


class Problems(list[tuple[str, str]]):
    """``(dotted_path, message)`` pairs, with the exceptions behind them (``causes``: plugins
    that failed to load), so ``ConfigError(problems)`` can chain them.

    >>> Problems([("a", "bad")], causes=[ValueError("why")]).causes
    [ValueError('why')]
    """

    def __init__(
        self, errors: Iterable[tuple[str, str]] = (), *, causes: Sequence[BaseException] = ()
    ) -> None:
        super().__init__(errors)
        self.causes = list(causes)


def join_path(base: str, key: str | int) -> str:
    """``join_path("a.b", "c")`` -> ``"a.b.c"``; integers become ``[i]``.

    >>> join_path("", "model"), join_path("m.inputs", 0)
    ('model', 'm.inputs[0]')
    """
    if isinstance(key, int):
        return f"{base}[{key}]"
    return f"{base}.{key}" if base else key
